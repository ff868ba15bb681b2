// One file over 300 lines: the service's receiving, accepting and its table of io.waypost.Handoff1
// members share the offer book, its expiry and what shows it; sending is apart (HandoffSending.swift),
// as are the transports and their devices (HandoffTransports.swift) and who may speak for KDE Connect
// (HandoffSenders.swift).
import DBus
import Desktop
import ExternalEvents
public import Handoff
import Logging
import Synchronization
import Planning
import WaypostContract

/// Activities other devices hand over through KDE Connect's protocol (kdeconnectd or GSConnect): a
/// `waypost-handoff:` URL that the desktop opened (both open every shared URL with the default
/// handler) becomes an OFFER, never
/// a continuation by itself; the user accepts it (`Accept`), or the device is trusted
/// (`TrustDevice`) and its offers continue at once. Only an offer kdeconnectd (its program checked)
/// said it received from a paired device is that device's: any local process can open such a URL,
/// and its offer says so and always waits for the user. Offers are bounded (`OfferBook`), and what
/// shows them goes when they expire or are replaced.
public final class HandoffService: Sendable {
    static let kdeConnect: BusName = "org.kde.kdeconnect"
    let service: DispatcherService
    let book: Mutex<OfferBook>
    let trusted: Mutex<Set<String>>
    /// `$XDG_CONFIG_HOME/waypost/handoff-trusted-devices`: one device id a line, "-" for "_" (`DeviceID`).
    let trustFile: String?
    let presenter: any OfferPresenter
    /// Unix seconds: the clock stays out of `OfferBook`.
    let now: @Sendable () -> Int64
    /// Who may speak for KDE Connect (HandoffSenders.swift).
    let senders = KDEConnectSenders()
    /// Withdraws offers as they expire, while any is open.
    private let sweeper = Mutex<Task<Void, Never>?>(nil)
    var logger: Logger { service.logger }
    var connection: Connection { service.connection }

    public init(
        service: DispatcherService, trustFile: String?, presenter: any OfferPresenter = ListedOffersOnly(),
        offerLifetime: Int64 = OfferBook.lifetime, now: @escaping @Sendable () -> Int64
    ) {
        book = Mutex(OfferBook(lifetime: offerLifetime))
        self.service = service
        self.trustFile = trustFile
        self.presenter = presenter
        self.now = now
        trusted = Mutex(Set((trustFile.flatMap(HandoffFiles.lines(of:)) ?? []).map(DeviceID.canonical)))
    }

    /// Exports `io.waypost.Handoff1`, takes the dispatcher's `waypost-handoff:` links, and listens for
    /// KDE Connect's shares. Call before `DispatcherService.start()` takes the bus name.
    public func start() async throws {
        try connection.export(Contract.handoffObjectPath, interfaces: [interface], executor: connection.executor)
        service.handoff.withLock { $0 = self }
        await service.dispatcher.attach(offers: self)
        let rule = MatchRule(
            sender: Self.kdeConnect, interface: "org.kde.kdeconnect.device.share", member: "shareReceived")
        let shares = try await connection.signals(matching: rule)
        Task { [weak self] in
            do {
                for try await message in shares {
                    guard let self else { return }
                    await self.shareReceived(message)
                }
            } catch {}
        }
    }

    // MARK: Receiving

    /// A `waypost-handoff:` link `caller` opened here (through the connection `sender`): recorded as an
    /// offer, shown, continued at once only for a trusted device that kdeconnectd named. Opened by the
    /// owner of GSConnect's name, it says so (`throughGSConnect`), and waits all the same.
    /// - Throws: `invalidURI` for a payload that does not read (logged, nothing recorded);
    ///   `budgetExceeded` when the caller has its most unverified offers open.
    func receive(_ uri: String, platformData: LaunchPlatformData, caller: String, sender: BusName? = nil) async throws(DispatchError) -> Outcome {
        if book.withLock({ $0.refuses(uri, from: caller, now: now()) }) {
            throw .budgetExceeded(
                what: "the unverified handoff offers", app: caller, amount: OfferBook.unverifiedPerCaller + 1, limit: OfferBook.unverifiedPerCaller)
        }
        let payload: HandoffPayload
        do { payload = try HandoffPayload(url: uri) } catch {
            logger.warning("handoff refused: \(error)")
            throw .invalidURI(OutsideText.shown(uri, limit: 64), reason: error.description)
        }
        var opened = OfferOrigin.local
        if let sender, (try? await GSConnectTransport.owner(on: connection)) == sender { opened = .throughGSConnect }
        let made = update { book in
            let made = Result { () throws(OfferError) in try book.offer(payload, url: uri, caller: caller, opened: opened, now: now()) }
            return (made, show: (try? made.get()).flatMap { continuesAtOnce($0) ? nil : $0 })
        }
        let offer: HandoffOffer
        switch made {
        case .success(let made): offer = made
        case .failure(.tooManyUnverified(let caller, let limit)):
            throw .budgetExceeded(what: "the unverified handoff offers", app: caller, amount: limit + 1, limit: limit)
        case .failure(let error): throw .handoff(.offer(error))
        }
        logger.info("handoff offer \(offer.id): \(offer.summary)")
        return try await offered(offer, platformData: platformData)
    }

    /// A trusted device's offer, that kdeconnectd named, continues without asking.
    private func continuesAtOnce(_ offer: HandoffOffer) -> Bool {
        guard case .device(let id, _) = offer.origin else { return false }
        return trusted.withLock { $0.contains(DeviceID.canonical(id)) }
    }

    /// After `update` showed the offer (or did not, for a trusted device's): continued, or waiting.
    private func offered(_ offer: HandoffOffer, platformData: LaunchPlatformData) async throws(DispatchError) -> Outcome {
        if case .device(let id, _) = offer.origin { rememberRunsWaypost(id) }
        if continuesAtOnce(offer) {
            logger.info("handoff offer \(offer.id) from a trusted device: continued without asking")
            // Inside the report of the link that brought it (`receive`).
            return try await service.dispatcher.deliver(try await accepted(offer.id, platformData: platformData))
        }
        sweepAsTheyExpire()
        return Outcome(action: .offer, appID: Outcome.handoffAppID, rule: .none, preface: "offered: \(offer.summary)")
    }

    /// KDE Connect's word that a paired device shared a URL (it opens it at the same moment): the
    /// device's only from kdeconnectd; from anyone else, the offer says its sender is unknown.
    private func shareReceived(_ message: Message) async {
        let prefix = "/modules/kdeconnect/devices/"
        guard let sender = message.sender, let path = message.path?.rawValue, path.hasPrefix(prefix), path.hasSuffix("/share"),
            let url = try? message.decode(String.self), HandoffPayload.hasScheme(url)
        else { return }
        let id = String(path.dropFirst(prefix.count).dropLast("/share".count))
        let origin: OfferOrigin
        switch await senders.check(sender, on: connection, logger: logger) {
        case .trusted:
            let name = (try? await connection.call(
                destination: sender, path: ObjectPath(prefix + id), interface: "org.freedesktop.DBus.Properties",
                member: "Get", "org.kde.kdeconnect.device", "name", timeout: .seconds(2)
            ).decode(Variant.self)).flatMap { if case .string(let name) = $0 { name } else { nil } } ?? id
            origin = .device(id: id, name: name)
        default:
            origin = .unknownSender
        }
        let changed = update { book in
            let changed = book.shareReceived(url, from: origin, now: now())
            return (changed, show: changed.flatMap { continuesAtOnce($0) ? nil : $0 })
        }
        guard let changed else { return }
        logger.info("handoff offer \(changed.id): \(changed.summary)\(origin.isVerified ? " (device \(id))" : "")")
        _ = try? await offered(changed, platformData: LaunchPlatformData(activationToken: nil, desktopStartupID: nil))
    }

    // MARK: Accepting

    /// Continues an offer as a clicked activity would: the app that continues its type, in the scene its
    /// rules pick; with no such app, its webpage URL goes where a clicked link would.
    /// - Throws: `handoff(.offer)` for an offer that is not open, saying what became of it;
    ///   `noHandler` when neither an app nor a webpage URL takes it; what delivering throws.
    func accept(_ id: String, platformData: LaunchPlatformData) async throws(DispatchError) -> Outcome {
        try await service.dispatcher.carry("handoff:\(OutsideText.shown(id, limit: 64))") { () async throws(DispatchError) in
            try await self.accepted(id, platformData: platformData)
        }
    }

    /// Takes the offer `id` and makes the event that continues it.
    private func accepted(_ id: String, platformData: LaunchPlatformData) async throws(DispatchError) -> Event {
        let taken = update { book in
            let taken = Result { () throws(OfferError) in try book.take(id, now: now()) }
            if case .success(let offer) = taken {
                presenter.withdraw(offer)
                emitOffersChanged()
            }
            return (taken, show: nil)
        }
        let offer: HandoffOffer
        switch taken {
        case .success(let taken): offer = taken
        case .failure(let error): throw .handoff(.offer(error))
        }
        return try await continuation(of: offer, platformData: platformData)
    }

    /// The offer's activity, for the app that continues its type; when no app does, its webpage URL
    /// as a link, where a clicked one would go.
    private func continuation(of offer: HandoffOffer, platformData: LaunchPlatformData) async throws(DispatchError) -> Event {
        let payload = offer.payload
        let details = Contract.ActivityDetails(
            targetContentIdentifier: payload.targetContentIdentifier, webpageURL: payload.webpageURL, title: payload.title,
            userInfo: UserInfoValue.variants(payload.userInfo))
        // What cannot be encoded here is nobody's refusal: it would go nowhere, whoever was tried.
        do { _ = try WireBytes.encode(details.variants) } catch {
            throw .invalidArgument("handoff offer \(offer.id)", reason: "its activity cannot be sent over D-Bus: \(error)")
        }
        let activity = UserActivity(type: payload.activityType, details)
        try Registry.check(id: activity.type, what: "activity type")
        let event = Event(planned: .activity(activity, publishedBy: nil), activity: details.variants, platformData: platformData)
        // One plan's first step says whether any app continues it; Explain's walk would plan once per destination.
        switch try await service.dispatcher.nowhere(event.planned) {
        case nil:
            return event
        case .noHandler(let reason)?:
            guard let webpage = payload.webpageURL else {
                throw .noHandler(Dispatcher.subject(of: event.planned), reason: "\(reason), and the handoff carries no webpage URL")
            }
            logger.info("handoff offer \(offer.id): no app continues it; its webpage goes where a link would")
            return Event(planned: .link(webpage, scheme: try URIGrammar.scheme(of: webpage)), platformData: platformData)
        case let why?:
            throw Dispatcher.error(why, for: event.planned)
        }
    }

    // MARK: Keeping what shows the offers in step

    /// Changes the book and, under its lock, has the presenter follow: what expired or was replaced
    /// is withdrawn, then `show` is shown. Under one lock, so that no offer is shown after it went
    /// (a flood's receives interleave at every await), and never more than are kept.
    private func update<Value>(_ change: (inout OfferBook) -> (Value, show: HandoffOffer?)) -> Value {
        book.withLock { book in
            let (value, show) = change(&book)
            let departed = book.takeDeparted(now: now())
            for offer in departed { presenter.withdraw(offer) }
            if let show {
                presenter.present(show) { [weak self] token in
                    _ = try? await self?.accept(show.id, platformData: LaunchPlatformData(activationToken: token, desktopStartupID: nil))
                }
            }
            if !departed.isEmpty || show != nil { emitOffersChanged() }
            return value
        }
    }

    /// Takes away what shows the offers that expired or were replaced, and tells listeners.
    func settle() { update { _ in ((), show: nil) } }

    /// Wakes as each open offer expires (one task, while any is open), so that its notification goes
    /// with it even when nobody asks.
    private func sweepAsTheyExpire() {
        sweeper.withLock { sweeper in
            guard sweeper == nil else { return }
            sweeper = Task { [weak self] in
                while let self {
                    let next: Int64? = self.sweeper.withLock { sweeper in
                        let next = self.book.withLock { $0.nextExpiry }
                        if next == nil { sweeper = nil }
                        return next
                    }
                    guard let next else { break }
                    // Whole seconds on the clock `now` reads: a little past the second it turns.
                    try? await Task.sleep(for: .seconds(max(0, next - self.now())) + .milliseconds(50))
                    self.settle()
                }
            }
        }
    }

    private func emitOffersChanged() {
        try? connection.emit(path: Contract.handoffObjectPath, interface: Contract.Handoff1.interface, member: Contract.Handoff1.offersChanged.name)
    }

    // MARK: Trust

    /// A device kdeconnectd named for a handoff runs Waypost: `waypost handoff devices` says so
    /// (`handoff-devices-with-waypost` beside the trusted devices' file).
    private func rememberRunsWaypost(_ device: String) {
        guard let file = devicesWithWaypostFile else { return }
        var known = HandoffFiles.lines(of: file) ?? []
        let device = DeviceID.canonical(device)
        guard !known.contains(device), known.count < 256 else { return }
        known.append(device)
        try? HandoffFiles.write(lines: known, to: file)
    }

    private var devicesWithWaypostFile: String? {
        guard let trustFile, let slash = trustFile.lastIndex(of: "/") else { return nil }
        return trustFile[..<slash] + "/handoff-devices-with-waypost"
    }

    /// The devices (`DeviceID.canonical`) that handed something over here: they run Waypost.
    func devicesWithWaypost() -> Set<String> {
        Set((devicesWithWaypostFile.flatMap(HandoffFiles.lines(of:)) ?? []).map(DeviceID.canonical))
    }

    func setTrusted(_ device: String, _ trust: Bool) throws(DispatchError) {
        // KDE Connect's ids are path elements (letters, digits, "_"); GSConnect's hold "-".
        guard !device.isEmpty, device.utf8.count <= 256,
            device.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" || $0 == "-") })
        else {
            throw .invalidArgument(OutsideText.shown(device, limit: 64), reason: "not a KDE Connect device id")
        }
        let device = DeviceID.canonical(device)
        let devices = trusted.withLock { set in
            if trust { set.insert(device) } else { set.remove(device) }
            return set.sorted()
        }
        guard let trustFile else { return }
        do { try HandoffFiles.write(lines: devices, to: trustFile) } catch {
            throw .storeFailed("cannot write \(trustFile): \(error)")
        }
    }

    // MARK: io.waypost.Handoff1

    private var interface: Interface {
        typealias Members = Contract.Handoff1
        return Interface(
            Members.interface,
            methods: [
                service.serving.method(Members.listOffers) { call in
                    let offers = self.update { book in (book.current(now: self.now()), show: nil) }
                    return try call.reply(offers.map { Self.contract($0).variants })
                },
                service.serving.method(Members.accept) { call in
                    let (id, platform) = try call.arguments(String.self, [String: Variant].self)
                    let outcome = try await self.service.carried { () async throws(DispatchError) in
                        try await self.accept(id, platformData: LaunchPlatformData(platform))
                    }
                    return try call.reply(outcome.contractOutcome(reason: false).properties)
                },
                service.serving.method(Members.listDevices) { call in
                    let reachable = try call.arguments(Bool.self)
                    let devices: [PairedDevice]
                    do throws(HandoffFailure) {
                        devices = try await Self.devices(reachable: reachable, of: try await self.transports())
                    } catch { throw DispatchError.handoff(error).busError }
                    let handedOver = self.devicesWithWaypost()
                    return try call.reply(devices.map { device in
                        Contract.HandoffDevice(
                            id: device.id, name: device.name, type: device.type, transport: device.transport.rawValue,
                            handedOver: handedOver.contains(device.canonicalID)
                        ).variants
                    })
                },
                service.serving.method(Members.send) { call in
                    let (device, app, webpageOnly) = try call.arguments(String.self, String.self, Bool.self)
                    let sent: (device: String, url: String)
                    do throws(DispatchError) {
                        sent = try await self.send(to: device, app: app.isEmpty ? nil : app, webpageOnly: webpageOnly)
                    } catch { throw error.busError }
                    return try call.reply(sent.device, sent.url)
                },
                service.serving.method(Members.trustDevice) { call in
                    let (device, trust) = try call.arguments(String.self, Bool.self)
                    do throws(DispatchError) { try self.setTrusted(device, trust) } catch { throw error.busError }
                    return try call.reply()
                },
            ],
            signals: [Members.offersChanged.signalDeclaration])
    }

    static func contract(_ offer: HandoffOffer) -> Contract.HandoffOffer {
        let deviceID: String? = if case .device(let id, _) = offer.origin { id } else { nil }
        return Contract.HandoffOffer(
            id: offer.id, summary: offer.summary, activityType: offer.payload.activityType, title: offer.payload.title,
            webpageURL: offer.payload.webpageURL, deviceID: deviceID, device: offer.origin.label, received: offer.receivedAt,
            expires: offer.expiresAt)
    }
}

/// The dispatcher's plan holds a `waypost-handoff:` link as an offer (`Destination.offer`) through this.
extension HandoffService: OfferTaking {
    func take(_ uri: String, platformData: LaunchPlatformData, caller: String, sender: BusName?) async throws(DispatchError) -> Outcome {
        try await receive(uri, platformData: platformData, caller: caller, sender: sender)
    }
}

// Open offers lead the desktops' searches (DispatcherService+Search.swift) when the words match: the
// result ids are "handoff:ID", which no saved activity's (a number) can be.
extension DispatcherService {
    static let handoffResultPrefix = "handoff:"

    /// The open offers whose words hold `terms` (OfferBook's `matching`), newest first, as search results.
    func handoffResults(matching terms: [String]) -> [ResultMeta] {
        guard let handoff = handoff.withLock({ $0 }) else { return [] }
        return handoff.book.withLock { $0.matching(terms, now: handoff.now()) }.reversed().map(Self.result)
    }

    /// Every open offer as a search result, newest first (for `GetResultMetas`, which names its ids).
    func handoffResults() -> [ResultMeta] {
        guard let handoff = handoff.withLock({ $0 }) else { return [] }
        return handoff.book.withLock { $0.current(now: handoff.now()) }.reversed().map(Self.result)
    }

    private static func result(_ offer: HandoffOffer) -> ResultMeta {
        ResultMeta(id: handoffResultPrefix + offer.id, name: offer.summary, appName: "Handoff", icon: "emblem-shared")
    }

    /// Accepts the offer a search result names; false when the id is no offer's.
    func acceptFromSearch(_ id: String, _ platform: LaunchPlatformData) async throws -> Bool {
        guard id.hasPrefix(Self.handoffResultPrefix), let handoff = handoff.withLock({ $0 }) else { return false }
        let offer = String(id.dropFirst(Self.handoffResultPrefix.count))
        _ = try await carried { () async throws(DispatchError) in try await handoff.accept(offer, platformData: platform) }
        return true
    }
}
