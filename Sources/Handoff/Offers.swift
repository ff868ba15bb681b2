/// Where an offer came from, as far as the receiving desktop can tell.
public enum OfferOrigin: Sendable, Hashable {
    /// KDE Connect said it shared this very URL from this paired device (`shareReceived`).
    case device(id: String, name: String)
    /// Opened on this desktop with no share seen: any local process can open a URL of the scheme.
    case local

    /// For people: the device's name, or what an unverified offer is.
    public var label: String {
        switch self {
        case .device(_, let name): name
        case .local: "this computer (not through KDE Connect: unverified)"
        }
    }
}

/// An activity another device handed over, waiting for the user to accept it.
public struct HandoffOffer: Sendable, Hashable {
    public var id: String
    public var payload: HandoffPayload
    public var origin: OfferOrigin
    /// Unix seconds on this desktop's clock.
    public var receivedAt: Int64
    public var expiresAt: Int64

    /// What the notification says: "Continue ‘TITLE’ from DEVICE".
    public var summary: String {
        "Continue ‘\(payload.title ?? payload.activityType)’ from \(origin.label)"
    }
}

/// Why an offer could not be accepted.
public enum OfferError: Error, Sendable, Hashable, CustomStringConvertible {
    case unknown(id: String)
    /// It was offered at `receivedAt` and expired at `expiredAt`.
    case expired(id: String, receivedAt: Int64, expiredAt: Int64)

    public var description: String {
        switch self {
        case .unknown(let id): "no handoff offer \(id) (accepted already, or never made)"
        case .expired(let id, let received, let expired): "the handoff offer \(id) expired (offers last \(expired - received) seconds)"
        }
    }
}

/// The offers a desktop holds, and the shares KDE Connect reported, matched to each other. Pure: the
/// caller passes the time (Unix seconds), so that expiry is tested without a clock.
///
/// A share (`shareReceived`) and the URL's arrival through `xdg-open` come in either order within
/// `matchWindow`: whichever comes second makes the offer the device's.
public struct OfferBook: Sendable {
    /// How long an offer waits for the user by default: 5 minutes.
    public static let lifetime: Int64 = 300
    public let lifetime: Int64
    /// A share and an opened URL this close together are one handoff.
    public static let matchWindow: Int64 = 10
    /// Offers held at once; the oldest goes first.
    public static let capacity = 32

    private var offers: [HandoffOffer] = []
    private var shares: [(url: String, device: OfferOrigin, at: Int64)] = []
    private var nextID = 1

    public init(lifetime: Int64 = OfferBook.lifetime) { self.lifetime = lifetime }

    /// Records an offer for `url`, the device's when KDE Connect reported sharing it.
    public mutating func offer(_ payload: HandoffPayload, url: String, now: Int64) -> HandoffOffer {
        expire(now: now)
        let key = Self.key(url)
        var origin = OfferOrigin.local
        if let index = shares.firstIndex(where: { $0.url == key }) {
            origin = shares.remove(at: index).device
        }
        let offer = HandoffOffer(id: String(nextID), payload: payload, origin: origin, receivedAt: now, expiresAt: now + lifetime)
        nextID += 1
        offers.append(offer)
        unverifiedURLs[offer.id] = key
        if offers.count > Self.capacity { offers.removeFirst() }
        return offer
    }

    private var unverifiedURLs: [String: String] = [:]

    /// Notes KDE Connect's word that `device` shared `url`; returns the offer it makes the device's,
    /// when the URL arrived first.
    public mutating func shareReceived(_ url: String, from device: OfferOrigin, now: Int64) -> HandoffOffer? {
        expire(now: now)
        let key = Self.key(url)
        if let index = offers.firstIndex(where: { $0.origin == .local && unverifiedURLs[$0.id] == key && now - $0.receivedAt <= Self.matchWindow }) {
            offers[index].origin = device
            unverifiedURLs[offers[index].id] = nil
            return offers[index]
        }
        shares.append((key, device, now))
        if shares.count > Self.capacity { shares.removeFirst() }
        return nil
    }

    /// The offers still open, oldest first.
    public mutating func current(now: Int64) -> [HandoffOffer] {
        expire(now: now)
        return offers.filter { now < $0.expiresAt }
    }

    /// Takes an offer to continue it: it is gone once taken.
    /// - Throws: `OfferError.unknown`, or `.expired` for one past its lifetime (removed too).
    public mutating func take(_ id: String, now: Int64) throws(OfferError) -> HandoffOffer {
        guard let index = offers.firstIndex(where: { $0.id == id }) else { throw .unknown(id: id) }
        let offer = offers.remove(at: index)
        unverifiedURLs[id] = nil
        if now >= offer.expiresAt { throw .expired(id: id, receivedAt: offer.receivedAt, expiredAt: offer.expiresAt) }
        return offer
    }

    private mutating func expire(now: Int64) {
        // Kept a while past expiry, so that accepting one late says it expired.
        offers.removeAll { now >= $0.expiresAt + lifetime }
        shares.removeAll { now - $0.at > Self.matchWindow }
        unverifiedURLs = unverifiedURLs.filter { id, _ in offers.contains { $0.id == id } }
    }

    /// KDE Connect lower-cases the scheme, and its signal may show the URL decoded: the payload's
    /// alphabet needs no decoding, so the scheme's case is all that can differ.
    static func key(_ url: String) -> String {
        String(decoding: url.utf8.map(Base64URL.lowercased).prefix(HandoffPayload.prefix.utf8.count) + url.utf8.dropFirst(HandoffPayload.prefix.utf8.count), as: UTF8.self)
    }
}
