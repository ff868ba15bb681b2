public import Handoff
public import WaypostContract

/// What went wrong with a handoff, in words that name it: an offer that expired or was replaced, a
/// device that is not reachable, a KDE Connect that is not kdeconnectd. Under `DispatchError.handoff`;
/// on the bus each has the contract's name its annotation lists (`failure`).
public enum HandoffFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// The offer is not open (`UnknownActivity`): what became of it.
    case offer(OfferError)
    /// `device` is paired but KDE Connect cannot reach it now (`NoHandler`); the reachable ones.
    case unreachable(device: String, reachable: [String])
    /// No paired device is `device` (`NoHandler`); the reachable ones.
    case noSuchDevice(String, reachable: [String])
    /// No device was named and not exactly one is reachable (`NoHandler`); the reachable ones.
    case chooseDevice(reachable: [String])
    /// The transport does not answer on the session bus (`NoHandler`): the bus's words.
    case transportAbsent(HandoffTransportKind, String)
    /// Neither kdeconnectd nor GSConnect answers (`NoHandler`): why, for each.
    case noTransport([String])
    /// `org.kde.kdeconnect` is owned by a process that is not kdeconnectd (`NoHandler`); nothing was sent.
    case kdeConnectUntrusted(KDEConnectOwner)
    /// GSConnect's name is owned by a process that does not run gjs (`NoHandler`); nothing was sent.
    case gsconnectUntrusted(owner: String, pid: UInt32, program: String, expected: [String])
    /// The device takes webpage URLs only, and the activity has none (`NoHandler`).
    case noWebpage(device: String, activityType: String)

    public var failure: Contract.Failure {
        switch self {
        case .offer: .unknownActivity
        default: .noHandler
        }
    }

    public var description: String {
        switch self {
        case .offer(let error): error.description
        case .unreachable(let device, let reachable):
            "\(Self.shown(device)) is paired but not reachable now (reachable: \(Self.list(reachable)))"
        case .noSuchDevice(let device, let reachable):
            "no paired device is \(Self.shown(device)) (reachable: \(Self.list(reachable)))"
        case .chooseDevice(let reachable):
            reachable.isEmpty ? "no paired device is reachable" : "several devices are reachable; choose one: \(Self.list(reachable))"
        case .transportAbsent(.kdeconnectd, let why): "kdeconnectd does not answer on the session bus: \(why)"
        case .transportAbsent(.gsconnect, let why): "GSConnect does not answer on the session bus: \(why)"
        case .noTransport(let why):
            "neither kdeconnectd (KDE Connect) nor GSConnect answers on the session bus (is either running?): " + why.joined(separator: "; ")
        case .kdeConnectUntrusted(let owner): "\(owner); nothing was sent"
        case .gsconnectUntrusted(let owner, let pid, let program, let expected):
            "org.gnome.Shell.Extensions.GSConnect is owned by \(owner), pid \(pid) running \(OutsideText.shown(program, limit: 200)), "
                + "not GSConnect's gjs (\(expected.joined(separator: ", "))); nothing was sent"
        case .noWebpage(let device, let type):
            "\(Self.shown(device)) takes webpage URLs only, and the activity \(Self.shown(type)) has none"
        }
    }

    static func shown(_ text: String) -> String { OutsideText.shown(text, limit: 64) }
    static func list(_ devices: [String]) -> String { devices.isEmpty ? "none" : devices.map(shown).joined(separator: ", ") }
}

/// Who owns `org.kde.kdeconnect`, when it is not kdeconnectd: for the log and the sender's error.
public struct KDEConnectOwner: Sendable, Hashable, CustomStringConvertible {
    public var owner: String
    public var pid: UInt32
    public var program: String
    /// The programs that service files for the name start.
    public var expected: [String]

    public var description: String {
        "org.kde.kdeconnect is owned by \(owner), pid \(pid) running \(OutsideText.shown(program, limit: 200)), not kdeconnectd ("
            + (expected.isEmpty ? "no D-Bus service file names it" : expected.joined(separator: ", ")) + ")"
    }
}
