/// The offers a desktop holds, and the shares KDE Connect reported, matched to each other. Pure: the
/// caller passes the time (Unix seconds), so that expiry is tested without a clock.
///
/// A share (`shareReceived`) and the URL's arrival through `xdg-open` come in either order within
/// `matchWindow`: whichever comes second makes the offer the device's. Bounds, since any process may
/// open a URL: `capacity` offers kept (a new one replaces the oldest unverified, verified ones only
/// when none is left), `unverifiedPerCaller` unverified offers open per caller (the next is refused).
/// Offers that expire or are replaced are handed out once (`takeDeparted`), so that what shows them
/// goes with them; the last `remembered` ids say what became of them.
public struct OfferBook: Sendable {
    /// How long an offer waits for the user by default: 5 minutes.
    public static let lifetime: Int64 = 300
    public let lifetime: Int64
    /// A share and an opened URL this close together are one handoff.
    public static let matchWindow: Int64 = 10
    /// Offers held at once.
    public static let capacity = 32
    /// Unverified offers one caller may have open at once.
    public static let unverifiedPerCaller = 8
    /// Shares awaiting their URL, of verified and of unknown senders each.
    static let sharesKept = 32
    /// Ids whose fate is remembered after their offer went.
    static let remembered = 256

    private struct Share {
        var url: String
        var origin: OfferOrigin
        var at: Int64
    }

    private enum Gone {
        case expired(receivedAt: Int64, expiredAt: Int64)
        case accepted, replaced
    }

    private var offers: [HandoffOffer] = []
    private var shares: [Share] = []
    /// Offer id → its URL's key, while it waits for a share to verify it.
    private var unverifiedURLs: [String: String] = [:]
    private var gone: [String: Gone] = [:]
    private var goneOrder: [String] = []
    private var departed: [HandoffOffer] = []
    private var nextID = 1

    public init(lifetime: Int64 = OfferBook.lifetime) { self.lifetime = lifetime }

    /// Whether an offer of `url` from `caller` would be refused for the unverified offers it has
    /// open: asked before the payload is read, which costs more than the refusal (a flood's offers
    /// are refused this way).
    public mutating func refuses(_ url: String, from caller: String, now: Int64) -> Bool {
        expire(now: now)
        let key = Self.key(url)
        guard !shares.contains(where: { $0.url == key }) else { return false }
        return offers.count(where: { !$0.origin.isVerified && $0.caller == caller }) >= Self.unverifiedPerCaller
    }

    /// Records an offer for `url`, opened by `caller`: the device's when KDE Connect reported sharing it,
    /// else `opened` (`.local`, or `.throughGSConnect` when GSConnect was the caller).
    /// - Throws: `tooManyUnverified` when it would be unverified and `caller` has
    ///   `unverifiedPerCaller` unverified offers open; nothing is recorded then.
    public mutating func offer(
        _ payload: HandoffPayload, url: String, caller: String, opened: OfferOrigin = .local, now: Int64
    ) throws(OfferError) -> HandoffOffer {
        expire(now: now)
        let key = Self.key(url)
        let share = shares.firstIndex { $0.url == key }
        // An unknown sender's word does not make GSConnect's opening any less GSConnect's.
        let origin = share.map { shares[$0].origin }.flatMap { $0.isVerified || opened == .local ? $0 : nil } ?? opened
        if !origin.isVerified {
            let open = offers.count(where: { !$0.origin.isVerified && $0.caller == caller })
            if open >= Self.unverifiedPerCaller { throw .tooManyUnverified(caller: caller, limit: Self.unverifiedPerCaller) }
        }
        if let share { shares.remove(at: share) }
        let offer = HandoffOffer(
            id: String(nextID), payload: payload, origin: origin, caller: caller, receivedAt: now, expiresAt: now + lifetime)
        nextID += 1
        offers.append(offer)
        if !origin.isVerified { unverifiedURLs[offer.id] = key }
        if offers.count > Self.capacity {
            let oldest = offers.dropLast().firstIndex { !$0.origin.isVerified } ?? offers.startIndex
            depart(offers.remove(at: oldest), .replaced)
        }
        return offer
    }

    /// Notes a `shareReceived` of `url` naming `origin` (a device, or an unknown sender); returns the
    /// offer whose origin it changes, when the URL arrived first.
    public mutating func shareReceived(_ url: String, from origin: OfferOrigin, now: Int64) -> HandoffOffer? {
        expire(now: now)
        let key = Self.key(url)
        if let index = offers.firstIndex(where: {
            !$0.origin.isVerified && unverifiedURLs[$0.id] == key && now - $0.receivedAt <= Self.matchWindow
        }) {
            // An unknown sender's word only tells a local offer apart; kdeconnectd's decides.
            guard origin.isVerified || offers[index].origin == .local else { return nil }
            offers[index].origin = origin
            if origin.isVerified { unverifiedURLs[offers[index].id] = nil }
            return offers[index]
        }
        shares.append(Share(url: key, origin: origin, at: now))
        if shares.count(where: { $0.origin.isVerified == origin.isVerified }) > Self.sharesKept,
            let oldest = shares.firstIndex(where: { $0.origin.isVerified == origin.isVerified })
        {
            shares.remove(at: oldest)
        }
        return nil
    }

    /// The offers still open, oldest first.
    public mutating func current(now: Int64) -> [HandoffOffer] {
        expire(now: now)
        return offers
    }

    /// The open offers whose words (title or activity type, the type, the device's name) hold every
    /// word of `terms` at the start of one of theirs, ignoring case; none for terms with no word.
    public mutating func matching(_ terms: [String], now: Int64) -> [HandoffOffer] {
        // As many words as a person types; the rest of a pasted flood is not searched for.
        let wanted = Array(terms.prefix(32).lazy.flatMap { Self.words(String(decoding: $0.utf8.prefix(1024), as: UTF8.self)) }.prefix(32))
            .map { String($0.prefix(64)) }
        guard !wanted.isEmpty else { return [] }
        return current(now: now).filter { offer in
            var words = Self.words(offer.payload.title ?? "") + Self.words(offer.payload.activityType)
            if case .device(_, let name) = offer.origin { words += Self.words(name) }
            return wanted.allSatisfy { term in words.contains { $0.hasPrefix(term) } }
        }
    }

    /// Takes an offer to continue it: it is gone once taken.
    /// - Throws: `OfferError` saying what became of an offer that is not open: expired, accepted,
    ///   replaced, gone long ago, or never made.
    public mutating func take(_ id: String, now: Int64) throws(OfferError) -> HandoffOffer {
        expire(now: now)
        if let index = offers.firstIndex(where: { $0.id == id }) {
            let offer = offers.remove(at: index)
            unverifiedURLs[id] = nil
            remember(id, .accepted)
            return offer
        }
        switch gone[id] {
        case .expired(let received, let expired): throw .expired(id: id, receivedAt: received, expiredAt: expired)
        case .accepted: throw .accepted(id: id)
        case .replaced: throw .replaced(id: id)
        case nil:
            if let number = Int(id), number >= 1, number < nextID { throw .forgotten(id: id) }
            throw .unknown(id: id)
        }
    }

    /// When the next open offer expires (Unix seconds), nil with none open.
    public var nextExpiry: Int64? { offers.lazy.map(\.expiresAt).min() }

    /// Offers that expired or were replaced since the last call, each once.
    public mutating func takeDeparted(now: Int64) -> [HandoffOffer] {
        expire(now: now)
        defer { departed = [] }
        return departed
    }

    private mutating func expire(now: Int64) {
        while let index = offers.firstIndex(where: { now >= $0.expiresAt }) {
            let offer = offers.remove(at: index)
            depart(offer, .expired(receivedAt: offer.receivedAt, expiredAt: offer.expiresAt))
        }
        shares.removeAll { now - $0.at > Self.matchWindow }
    }

    private mutating func depart(_ offer: HandoffOffer, _ why: Gone) {
        unverifiedURLs[offer.id] = nil
        departed.append(offer)
        remember(offer.id, why)
    }

    private mutating func remember(_ id: String, _ why: Gone) {
        if gone.updateValue(why, forKey: id) == nil { goneOrder.append(id) }
        if goneOrder.count > Self.remembered { gone[goneOrder.removeFirst()] = nil }
    }

    /// Runs of letters and digits, lower-cased: how searches split words.
    static func words(_ text: String) -> [String] {
        var words: [String] = []
        var current = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if scalar.properties.isAlphabetic || scalar.properties.numericType != nil {
                current.append(scalar)
            } else if !current.isEmpty {
                words.append(String(current).lowercased())
                current = String.UnicodeScalarView()
            }
        }
        if !current.isEmpty { words.append(String(current).lowercased()) }
        return words
    }

    /// KDE Connect lower-cases the scheme, and its signal may show the URL decoded: the payload's
    /// alphabet needs no decoding, so the scheme's case is all that can differ.
    static func key(_ url: String) -> String {
        String(decoding: url.utf8.map(Base64URL.lowercased).prefix(HandoffPayload.prefix.utf8.count) + url.utf8.dropFirst(HandoffPayload.prefix.utf8.count), as: UTF8.self)
    }
}
