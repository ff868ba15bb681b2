/// Where an offer came from, as far as the receiving desktop can tell.
public enum OfferOrigin: Sendable, Hashable {
    /// kdeconnectd (the owner of `org.kde.kdeconnect`, its program checked) said it shared this very
    /// URL from this paired device (`shareReceived`).
    case device(id: String, name: String)
    /// A `shareReceived` for this URL came from a process that is not kdeconnectd: whatever device
    /// it named, the sender is unknown.
    case unknownSender
    /// Opened on this desktop with no share seen: any local process can open a URL of the scheme.
    case local
    /// Opened by the owner of GSConnect's bus name (the connection that asked was its): a device
    /// paired with GSConnect shared it, as far as that owner goes. GSConnect opens shared URLs with
    /// the default handler and says nothing of them, so which device is not known.
    case throughGSConnect

    /// For people, on one line: the device's name as `OutsideText` shows it, or what an unverified offer is.
    public var label: String {
        switch self {
        case .device(_, let name): OutsideText.shown(name, limit: 64)
        case .unknownSender: "an unknown sender (not KDE Connect's kdeconnectd: unverified)"
        case .local: "this computer (not through KDE Connect: unverified)"
        case .throughGSConnect: "a device through GSConnect (which one, GSConnect does not say: unverified)"
        }
    }

    /// Only kdeconnectd's word makes an offer a device's.
    public var isVerified: Bool { if case .device = self { true } else { false } }
}

/// An activity another device handed over, waiting for the user to accept it.
public struct HandoffOffer: Sendable, Hashable {
    public var id: String
    public var payload: HandoffPayload
    public var origin: OfferOrigin
    /// Who opened the URL (the opener's app, else the calling process): unverified offers are
    /// bounded per caller.
    public var caller: String
    /// Unix seconds on this desktop's clock.
    public var receivedAt: Int64
    public var expiresAt: Int64

    public init(id: String, payload: HandoffPayload, origin: OfferOrigin, caller: String, receivedAt: Int64, expiresAt: Int64) {
        (self.id, self.payload, self.origin, self.caller) = (id, payload, origin, caller)
        (self.receivedAt, self.expiresAt) = (receivedAt, expiresAt)
    }

    /// What the notification says, origin first so that no title can push it out of sight or pose as
    /// it: "From DEVICE: continue ‘TITLE’", every outside word on one line and bounded.
    public var summary: String {
        let title = OutsideText.shown(payload.title ?? payload.activityType, limit: 120)
        let from = origin.label
        return "From \(from): continue ‘\(title)’"
    }

    /// What the notification's body says: the webpage URL, else the activity type, one line, bounded.
    public var detail: String { OutsideText.shown(payload.webpageURL ?? payload.activityType, limit: 200) }
}

/// Why an offer could not be made or accepted: each case says what happened to it.
public enum OfferError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No offer with this id was made here.
    case unknown(id: String)
    /// It was offered at `receivedAt` and expired at `expiredAt`.
    case expired(id: String, receivedAt: Int64, expiredAt: Int64)
    /// It was accepted already (offers are taken once).
    case accepted(id: String)
    /// Newer offers took its place: at most `OfferBook.capacity` are kept.
    case replaced(id: String)
    /// It was made here, and is gone: accepted, expired or replaced, longer ago than is remembered.
    case forgotten(id: String)
    /// `caller` has `limit` unverified offers open already; this one was not made.
    case tooManyUnverified(caller: String, limit: Int)

    public var description: String {
        switch self {
        case .unknown(let id): "no handoff offer \(OutsideText.shown(id, limit: 64)) was made here"
        case .expired(let id, let received, let expired):
            "the handoff offer \(id) expired (offers last \(expired - received) seconds)"
        case .accepted(let id): "the handoff offer \(id) was accepted already"
        case .replaced(let id): "the handoff offer \(id) was replaced by newer offers (\(OfferBook.capacity) are kept)"
        case .forgotten(let id): "the handoff offer \(id) is gone (accepted, expired or replaced by newer offers)"
        case .tooManyUnverified(let caller, let limit):
            "\(caller) has \(limit) unverified handoff offers open, its most"
        }
    }
}
