/// An error with a D-Bus error name and a human-readable message.
///
/// Errors received from a peer keep the peer's name and message. Errors thrown from a method handler
/// reach the caller with this name and message; any other error thrown by a handler reaches it as
/// `org.freedesktop.DBus.Error.Failed`, and an `ArgumentError` as `…InvalidArgs`.
public struct BusError: Error, Hashable, Sendable, CustomStringConvertible {
    public var name: ErrorName
    public var message: String

    public init(_ name: ErrorName, _ message: String = "") {
        self.name = name
        self.message = message
    }

    /// The error a caller gets for a malformed argument: `InvalidArgs` with the mismatch described.
    public init(_ error: ArgumentError) {
        self.init(.invalidArgs, error.description)
    }

    public var description: String { message.isEmpty ? name.rawValue : "\(name.rawValue): \(message)" }
}

// The standard error names of the D-Bus specification and libdbus, kept in one place.
extension ErrorName {
    public static let failed: ErrorName = "org.freedesktop.DBus.Error.Failed"
    public static let noMemory: ErrorName = "org.freedesktop.DBus.Error.NoMemory"
    public static let serviceUnknown: ErrorName = "org.freedesktop.DBus.Error.ServiceUnknown"
    public static let nameHasNoOwner: ErrorName = "org.freedesktop.DBus.Error.NameHasNoOwner"
    /// A call got no reply in time (the caller's timeout, or the bus gave up).
    public static let noReply: ErrorName = "org.freedesktop.DBus.Error.NoReply"
    public static let ioError: ErrorName = "org.freedesktop.DBus.Error.IOError"
    public static let badAddress: ErrorName = "org.freedesktop.DBus.Error.BadAddress"
    public static let notSupported: ErrorName = "org.freedesktop.DBus.Error.NotSupported"
    public static let limitsExceeded: ErrorName = "org.freedesktop.DBus.Error.LimitsExceeded"
    public static let accessDenied: ErrorName = "org.freedesktop.DBus.Error.AccessDenied"
    public static let authFailed: ErrorName = "org.freedesktop.DBus.Error.AuthFailed"
    public static let noServer: ErrorName = "org.freedesktop.DBus.Error.NoServer"
    /// A socket-level timeout; a call that got no reply in time is `noReply`.
    public static let timeout: ErrorName = "org.freedesktop.DBus.Error.Timeout"
    public static let noNetwork: ErrorName = "org.freedesktop.DBus.Error.NoNetwork"
    public static let disconnected: ErrorName = "org.freedesktop.DBus.Error.Disconnected"
    public static let invalidArgs: ErrorName = "org.freedesktop.DBus.Error.InvalidArgs"
    public static let fileNotFound: ErrorName = "org.freedesktop.DBus.Error.FileNotFound"
    public static let unknownMethod: ErrorName = "org.freedesktop.DBus.Error.UnknownMethod"
    public static let unknownObject: ErrorName = "org.freedesktop.DBus.Error.UnknownObject"
    public static let unknownInterface: ErrorName = "org.freedesktop.DBus.Error.UnknownInterface"
    public static let unknownProperty: ErrorName = "org.freedesktop.DBus.Error.UnknownProperty"
    public static let propertyReadOnly: ErrorName = "org.freedesktop.DBus.Error.PropertyReadOnly"
    public static let matchRuleInvalid: ErrorName = "org.freedesktop.DBus.Error.MatchRuleInvalid"
    public static let invalidSignature: ErrorName = "org.freedesktop.DBus.Error.InvalidSignature"
    public static let inconsistentMessage: ErrorName = "org.freedesktop.DBus.Error.InconsistentMessage"
}

/// A message's arguments did not have the types the reader expected.
///
/// Thrown while reading a received message; a method handler that lets it escape makes the caller get
/// `org.freedesktop.DBus.Error.InvalidArgs` with this description.
public struct ArgumentError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Zero-based index of the top-level argument being read.
    public var position: Int
    /// The signature the reader expected there.
    public var expected: String
    /// The signature found there; empty when the message had no more arguments.
    public var found: String
    /// What went wrong beyond the types, if anything (e.g. an unknown enumeration value).
    public var detail: String

    public init(position: Int, expected: String, found: String, detail: String = "") {
        self.position = position
        self.expected = expected
        self.found = found
        self.detail = detail
    }

    public var description: String {
        let what = found.isEmpty ? "no argument" : "'\(found)'"
        let base = "argument \(position): expected '\(expected)', found \(what)"
        return detail.isEmpty ? base : "\(base) (\(detail))"
    }
}
