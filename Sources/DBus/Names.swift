/// A string that libdbus rejected as a name, path or signature.
public struct InvalidNameError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What the string was meant to be.
    public enum Kind: String, Hashable, Sendable {
        case busName = "bus name"
        case objectPath = "object path"
        case interfaceName = "interface name"
        case memberName = "member name"
        case errorName = "error name"
        case signature = "signature"
    }

    public var kind: Kind
    /// The offending string.
    public var value: String
    /// libdbus's explanation.
    public var reason: String

    public var description: String { "invalid \(kind.rawValue) '\(value)': \(reason)" }
}

/// A bus name: unique (`:1.42`, given by the bus) or well-known (`org.example.App`).
///
/// Only valid values exist: the initialiser runs libdbus's validator (`dbus_validate_bus_name`). A string literal
/// that is invalid stops the program, since it can only be a bug in the code that wrote it.
public struct BusName: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible,
    ExpressibleByStringLiteral
{
    public let rawValue: String

    /// Validates `string`.
    /// - Throws: `InvalidNameError` carrying the string and libdbus's reason.
    public init(_ string: String) throws(InvalidNameError) {
        if let reason = libdbusRejection(of: string, as: .busName) {
            throw InvalidNameError(kind: .busName, value: string, reason: reason)
        }
        rawValue = string
    }

    /// Validates `rawValue`; nil when it is invalid.
    public init?(rawValue: String) {
        guard (try? Self(rawValue)) != nil else { return nil }
        self.rawValue = rawValue
    }

    public init(stringLiteral value: String) {
        do { try self.init(value) } catch { preconditionFailure("\(error)") }
    }

    /// For strings libdbus has already validated (fields of a received message).
    init(unchecked string: String) { rawValue = string }

    public var description: String { rawValue }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// An object path such as `/org/example/App`.
///
/// Only valid values exist: the initialiser runs libdbus's validator (`dbus_validate_path`). A string literal
/// that is invalid stops the program, since it can only be a bug in the code that wrote it.
public struct ObjectPath: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible,
    ExpressibleByStringLiteral
{
    public let rawValue: String

    /// Validates `string`.
    /// - Throws: `InvalidNameError` carrying the string and libdbus's reason.
    public init(_ string: String) throws(InvalidNameError) {
        if let reason = libdbusRejection(of: string, as: .objectPath) {
            throw InvalidNameError(kind: .objectPath, value: string, reason: reason)
        }
        rawValue = string
    }

    /// Validates `rawValue`; nil when it is invalid.
    public init?(rawValue: String) {
        guard (try? Self(rawValue)) != nil else { return nil }
        self.rawValue = rawValue
    }

    public init(stringLiteral value: String) {
        do { try self.init(value) } catch { preconditionFailure("\(error)") }
    }

    /// For strings libdbus has already validated (fields of a received message).
    init(unchecked string: String) { rawValue = string }

    public var description: String { rawValue }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// An interface name such as `org.example.Echo`.
///
/// Only valid values exist: the initialiser runs libdbus's validator (`dbus_validate_interface`). A string literal
/// that is invalid stops the program, since it can only be a bug in the code that wrote it.
public struct InterfaceName: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible,
    ExpressibleByStringLiteral
{
    public let rawValue: String

    /// Validates `string`.
    /// - Throws: `InvalidNameError` carrying the string and libdbus's reason.
    public init(_ string: String) throws(InvalidNameError) {
        if let reason = libdbusRejection(of: string, as: .interfaceName) {
            throw InvalidNameError(kind: .interfaceName, value: string, reason: reason)
        }
        rawValue = string
    }

    /// Validates `rawValue`; nil when it is invalid.
    public init?(rawValue: String) {
        guard (try? Self(rawValue)) != nil else { return nil }
        self.rawValue = rawValue
    }

    public init(stringLiteral value: String) {
        do { try self.init(value) } catch { preconditionFailure("\(error)") }
    }

    /// For strings libdbus has already validated (fields of a received message).
    init(unchecked string: String) { rawValue = string }

    public var description: String { rawValue }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// A method or signal name such as `Echo`.
///
/// Only valid values exist: the initialiser runs libdbus's validator (`dbus_validate_member`). A string literal
/// that is invalid stops the program, since it can only be a bug in the code that wrote it.
public struct MemberName: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible,
    ExpressibleByStringLiteral
{
    public let rawValue: String

    /// Validates `string`.
    /// - Throws: `InvalidNameError` carrying the string and libdbus's reason.
    public init(_ string: String) throws(InvalidNameError) {
        if let reason = libdbusRejection(of: string, as: .memberName) {
            throw InvalidNameError(kind: .memberName, value: string, reason: reason)
        }
        rawValue = string
    }

    /// Validates `rawValue`; nil when it is invalid.
    public init?(rawValue: String) {
        guard (try? Self(rawValue)) != nil else { return nil }
        self.rawValue = rawValue
    }

    public init(stringLiteral value: String) {
        do { try self.init(value) } catch { preconditionFailure("\(error)") }
    }

    /// For strings libdbus has already validated (fields of a received message).
    init(unchecked string: String) { rawValue = string }

    public var description: String { rawValue }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// An error name such as `org.freedesktop.DBus.Error.Failed`.
///
/// Only valid values exist: the initialiser runs libdbus's validator (`dbus_validate_error_name`). A string literal
/// that is invalid stops the program, since it can only be a bug in the code that wrote it.
public struct ErrorName: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible,
    ExpressibleByStringLiteral
{
    public let rawValue: String

    /// Validates `string`.
    /// - Throws: `InvalidNameError` carrying the string and libdbus's reason.
    public init(_ string: String) throws(InvalidNameError) {
        if let reason = libdbusRejection(of: string, as: .errorName) {
            throw InvalidNameError(kind: .errorName, value: string, reason: reason)
        }
        rawValue = string
    }

    /// Validates `rawValue`; nil when it is invalid.
    public init?(rawValue: String) {
        guard (try? Self(rawValue)) != nil else { return nil }
        self.rawValue = rawValue
    }

    public init(stringLiteral value: String) {
        do { try self.init(value) } catch { preconditionFailure("\(error)") }
    }

    /// For strings libdbus has already validated (fields of a received message).
    init(unchecked string: String) { rawValue = string }

    public var description: String { rawValue }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// A type signature such as `sa{sv}`: zero or more complete types.
///
/// Only valid values exist: the initialiser runs libdbus's validator (`dbus_signature_validate`). A string literal
/// that is invalid stops the program, since it can only be a bug in the code that wrote it.
public struct Signature: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible,
    ExpressibleByStringLiteral
{
    public let rawValue: String

    /// Validates `string`.
    /// - Throws: `InvalidNameError` carrying the string and libdbus's reason.
    public init(_ string: String) throws(InvalidNameError) {
        if let reason = libdbusRejection(of: string, as: .signature) {
            throw InvalidNameError(kind: .signature, value: string, reason: reason)
        }
        rawValue = string
    }

    /// Validates `rawValue`; nil when it is invalid.
    public init?(rawValue: String) {
        guard (try? Self(rawValue)) != nil else { return nil }
        self.rawValue = rawValue
    }

    public init(stringLiteral value: String) {
        do { try self.init(value) } catch { preconditionFailure("\(error)") }
    }

    /// For strings libdbus has already validated (fields of a received message).
    init(unchecked string: String) { rawValue = string }

    public var description: String { rawValue }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

extension Signature {
    // The single-code signatures, made once: every value written names its type.
    static let byte = Signature(unchecked: "y"), boolean = Signature(unchecked: "b")
    static let int16 = Signature(unchecked: "n"), uint16 = Signature(unchecked: "q")
    static let int32 = Signature(unchecked: "i"), uint32 = Signature(unchecked: "u")
    static let int64 = Signature(unchecked: "x"), uint64 = Signature(unchecked: "t")
    static let double = Signature(unchecked: "d"), string = Signature(unchecked: "s")
    static let objectPath = Signature(unchecked: "o"), signature = Signature(unchecked: "g")
    static let variant = Signature(unchecked: "v")
}

extension BusName {
    /// Whether the bus assigned this name to a connection (`:1.42`) rather than an owner requested it.
    public var isUnique: Bool { rawValue.hasPrefix(":") }

    /// The message bus itself.
    public static let bus: BusName = "org.freedesktop.DBus"
}

extension ObjectPath {
    public static let root: ObjectPath = "/"

    /// The path of a child object: `/org/example` + `Item` → `/org/example/Item`.
    /// - Throws: `InvalidNameError` when `element` is not a valid path element.
    public func appending(_ element: String) throws(InvalidNameError) -> ObjectPath {
        if element.isEmpty || element.contains("/") {
            throw InvalidNameError(kind: .objectPath, value: element, reason: "not a single path element")
        }
        return try ObjectPath(rawValue == "/" ? "/" + element : rawValue + "/" + element)
    }
}

extension Signature {
    public static let empty: Signature = ""

    /// The complete types this signature is made of: "sa{sv}" → ["s", "a{sv}"].
    public var completeTypes: [Signature] { DBus.completeTypes(of: rawValue).map(Signature.init(unchecked:)) }

    /// Whether this signature is exactly one complete type (what a variant may hold).
    public var isSingleCompleteType: Bool { DBus.isSingleCompleteType(rawValue) }
}
