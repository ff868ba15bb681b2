import DBus
import Desktop
import ExternalEvents
public import Handoff
import Logging
import Synchronization
import WaypostContract

/// Activities other devices hand over through KDE Connect: a `waypost-handoff:` URL that the
/// desktop opened (through `xdg-open`, as KDE Connect opens every shared URL) becomes an OFFER, never
/// a continuation by itself; the user accepts it (`Accept`), or the device is trusted
/// (`TrustDevice`) and its offers continue at once. Only an offer KDE Connect said it received from
/// a paired device (its `shareReceived` signal) is that device's: any local process can open such a
/// URL, and its offer says so and always waits for the user.
public final class HandoffService: Sendable {
    static let kdeConnect: BusName = "org.kde.kdeconnect"
    let service: DispatcherService
    let book: Mutex<OfferBook>
    let trusted: Mutex<Set<String>>
    /// `$XDG_CONFIG_HOME/waypost/handoff-trusted-devices`: one KDE Connect device id a line.
    let trustFile: String?
    let presenter: any OfferPresenter
    /// Unix seconds: the clock stays out of `OfferBook`.
    let now: @Sendable () -> Int64
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
        trusted = Mutex(Set(trustFile.flatMap(HandoffFiles.lines(of:)) ?? []))
    }

    /// Exports `io.waypost.Handoff1`, takes the dispatcher's `waypost-handoff:` links, and listens for
    /// KDE Connect's shares. Call before `DispatcherService.start()` takes the bus name.
    public func start() async throws {
        try connection.export(Contract.handoffObjectPath, interfaces: [interface], executor: connection.executor)
        service.handoff.withLock { $0 = self }
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

    /// A `waypost-handoff:` link opened here: recorded as an offer, shown, continued at once only
    /// for a trusted device that KDE Connect named.
    /// - Throws: `invalidURI` for a payload that does not read (logged, nothing recorded).
    func receive(_ uri: String, platformData: LaunchPlatformData) async throws(DispatchError) -> Outcome {
        let payload: HandoffPayload
        do { payload = try HandoffPayload(url: uri) } catch {
            logger.warning("handoff refused: \(error)")
            throw .invalidURI(String(uri.prefix(64)), reason: error.description)
        }
        let offer = book.withLock { $0.offer(payload, url: uri, now: now()) }
        logger.info("handoff offer \(offer.id): \(offer.summary)")
        return try await offered(offer, platformData: platformData)
    }

    private func offered(_ offer: HandoffOffer, platformData: LaunchPlatformData) async throws(DispatchError) -> Outcome {
        if case .device(let id, _) = offer.origin { rememberRunsWaypost(id) }
        if case .device(let id, _) = offer.origin, trusted.withLock({ $0.contains(id) }) {
            logger.info("handoff offer \(offer.id) from trusted device \(id): continued without asking")
            return try await accept(offer.id, platformData: platformData)
        }
        try? connection.emit(path: Contract.handoffObjectPath, interface: Contract.Handoff1.interface, member: Contract.Handoff1.offersChanged.name)
        await presenter.present(offer) { [weak self] token in
            _ = try? await self?.accept(offer.id, platformData: LaunchPlatformData(activationToken: token, desktopStartupID: nil))
        }
        return Outcome(action: .deliver, appID: "io.waypost.Handoff", rule: .none, preface: "offered: \(offer.summary)")
    }

    /// KDE Connect's word that a paired device shared a URL (it opens it at the same moment).
    private func shareReceived(_ message: Message) async {
        let prefix = "/modules/kdeconnect/devices/"
        guard let path = message.path?.rawValue, path.hasPrefix(prefix), path.hasSuffix("/share"),
            let url = try? message.decode(String.self), url.lowercased().hasPrefix(HandoffPayload.scheme + ":")
        else { return }
        // Signals reach us only from the name's owner (the match rule's sender); checked again here.
        guard let owner = try? await connection.nameOwner(of: Self.kdeConnect), owner == message.sender else { return }
        let id = String(path.dropFirst(prefix.count).dropLast("/share".count))
        let name = (try? await connection.call(
            destination: Self.kdeConnect, path: ObjectPath(prefix + id), interface: "org.freedesktop.DBus.Properties",
            member: "Get", "org.kde.kdeconnect.device", "name", timeout: .seconds(2)
        ).decode(Variant.self)).flatMap { if case .string(let name) = $0 { name } else { nil } } ?? id
        let verified = book.withLock { $0.shareReceived(url, from: .device(id: id, name: name), now: now()) }
        if let verified {
            logger.info("handoff offer \(verified.id) came from \(name) (\(id))")
            await presenter.withdraw(verified)
            _ = try? await offered(verified, platformData: LaunchPlatformData(activationToken: nil, desktopStartupID: nil))
        }
    }

    // MARK: Accepting

    /// Continues an offer as a clicked activity would: the app that continues its type, in the scene its
    /// rules pick; with no such app, its webpage URL goes where a clicked link would.
    /// - Throws: `unknownActivity` for an offer that is gone or expired; `noHandler` when neither an app
    ///   nor a webpage URL takes it; what delivering the activity or the link throws.
    func accept(_ id: String, platformData: LaunchPlatformData) async throws(DispatchError) -> Outcome {
        let offer: HandoffOffer
        do { offer = try book.withLock { book throws(OfferError) in try book.take(id, now: now()) } } catch {
            throw .unknownActivity(id, reason: error.description)
        }
        let result: Result<Outcome, DispatchError>
        do { result = .success(try await carryOut(offer, platformData: platformData)) } catch { result = .failure(error) }
        // The notification goes, and listeners hear, after the reply: not in the way of the activity.
        Task { [presenter, connection] in
            await presenter.withdraw(offer)
            try? connection.emit(path: Contract.handoffObjectPath, interface: Contract.Handoff1.interface, member: Contract.Handoff1.offersChanged.name)
        }
        return try result.get()
    }

    private func carryOut(_ offer: HandoffOffer, platformData: LaunchPlatformData) async throws(DispatchError) -> Outcome {
        let payload = offer.payload
        let details = Contract.ActivityDetails(
            targetContentIdentifier: payload.targetContentIdentifier, webpageURL: payload.webpageURL, title: payload.title,
            userInfo: UserInfoValue.variants(payload.userInfo))
        do {
            return try await service.dispatcher.continueActivity(
                UserActivity(type: payload.activityType, details), raw: details.variants, platformData: platformData)
        } catch .noHandler(let subject, let reason) {
            guard let webpage = payload.webpageURL else {
                throw .noHandler(subject, reason: "\(reason), and the handoff carries no webpage URL")
            }
            logger.info("handoff offer \(offer.id): no app continues \(payload.activityType); its webpage goes where a link would")
            return try await service.dispatcher.open(webpage, platformData: platformData)
        }
    }

    // MARK: Trust

    /// A device KDE Connect named for a handoff runs Waypost: `waypost handoff devices` says so
    /// (`handoff-devices-with-waypost` beside the trusted devices' file).
    private func rememberRunsWaypost(_ device: String) {
        guard let trustFile, let slash = trustFile.lastIndex(of: "/") else { return }
        let file = trustFile[..<slash] + "/handoff-devices-with-waypost"
        var known = HandoffFiles.lines(of: String(file)) ?? []
        guard !known.contains(device), known.count < 256 else { return }
        known.append(device)
        try? HandoffFiles.write(lines: known, to: String(file))
    }

    func setTrusted(_ device: String, _ trust: Bool) throws(DispatchError) {
        guard !device.isEmpty, device.utf8.count <= 256, !device.contains(where: { $0.isNewline || $0 == "/" }) else {
            throw .invalidArgument(device, reason: "not a KDE Connect device id")
        }
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
                service.method(Members.listOffers, .takesTurns, inFlight: .few) { call in
                    let offers = self.book.withLock { $0.current(now: self.now()) }
                    return try call.reply(offers.map { Self.contract($0).variants })
                },
                service.method(Members.accept, .delivers, inFlight: .few) { call in
                    let (id, platform) = try call.arguments(String.self, [String: Variant].self)
                    let outcome = try await self.service.routed("handoff:\(id)") { () async throws(DispatchError) in
                        try await self.accept(id, platformData: LaunchPlatformData(platform))
                    }
                    return try call.reply(outcome.contractOutcome(reason: false).properties)
                },
                service.method(Members.send, .delivers, inFlight: .few) { call in
                    let (device, app, webpageOnly) = try call.arguments(String.self, String.self, Bool.self)
                    let sent: (device: String, url: String)
                    do throws(DispatchError) {
                        sent = try await self.send(to: device, app: app.isEmpty ? nil : app, webpageOnly: webpageOnly)
                    } catch { throw error.busError }
                    return try call.reply(sent.device, sent.url)
                },
                service.method(Members.trustDevice, .takesTurns, inFlight: .few) { call in
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

extension DispatcherService {
    /// A `waypost-handoff:` link becomes an offer (HandoffService); nil for any other link. On the
    /// caller's executor: every `Open` asks, and a hop off the connection's thread and back would
    /// cost each link a job through the loop.
    nonisolated(nonsending) func handoffOffer(_ uri: String, platformData: LaunchPlatformData) async throws(DispatchError) -> Outcome? {
        guard HandoffPayload.hasScheme(uri), let handoff = handoff.withLock({ $0 })
        else { return nil }
        return try await handoff.receive(uri, platformData: platformData)
    }
}

// Open offers lead the desktops' searches (DispatcherService+Search.swift) while they last: the
// result ids are "handoff:ID", which no saved activity's (a number) can be.
extension DispatcherService {
    static let handoffResultPrefix = "handoff:"

    /// The open offers as search results, newest first.
    func handoffResults() -> [ResultMeta] {
        guard let handoff = handoff.withLock({ $0 }) else { return [] }
        return handoff.book.withLock { $0.current(now: handoff.now()) }.reversed().map { offer in
            ResultMeta(
                id: Self.handoffResultPrefix + offer.id, name: offer.summary, appName: "Handoff",
                icon: "emblem-shared")
        }
    }

    /// Accepts the offer a search result names; false when the id is no offer's.
    func acceptFromSearch(_ id: String, _ platform: LaunchPlatformData) async throws -> Bool {
        guard id.hasPrefix(Self.handoffResultPrefix), let handoff = handoff.withLock({ $0 }) else { return false }
        let offer = String(id.dropFirst(Self.handoffResultPrefix.count))
        _ = try await routed("handoff:\(offer)") { () async throws(DispatchError) in
            try await handoff.accept(offer, platformData: platform)
        }
        return true
    }
}
