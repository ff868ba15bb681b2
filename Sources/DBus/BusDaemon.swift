/// How `requestName` may take a name (the `DBUS_NAME_FLAG_*` values).
public struct RequestNameFlags: OptionSet, Sendable, Hashable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Let a later requester with `replaceExisting` take the name from us.
    public static let allowReplacement = RequestNameFlags(rawValue: 1)
    /// Take the name from its owner if that owner allowed replacement.
    public static let replaceExisting = RequestNameFlags(rawValue: 2)
    /// Fail rather than wait in the queue for the name.
    public static let doNotQueue = RequestNameFlags(rawValue: 4)
}

/// What the bus answered to `requestName`.
public enum RequestNameReply: UInt32, Sendable, Hashable {
    case primaryOwner = 1
    case inQueue = 2
    /// Someone else owns it and `doNotQueue` was given.
    case exists = 3
    case alreadyOwner = 4
}

/// What the bus answered to `releaseName`.
public enum ReleaseNameReply: UInt32, Sendable, Hashable {
    case released = 1
    case nonExistent = 2
    case notOwner = 3
}

extension Connection {
    /// Asks the bus for a well-known name. On a peer connection (`pair()`) the pair keeps its names
    /// itself, with no queue: a name the other side owns is `exists` unless it may be replaced.
    /// - Throws: `BusError` from the bus (e.g. `AccessDenied` from its policy, `InvalidArgs` for a
    ///   unique name).
    public func requestName(_ name: BusName, flags: RequestNameFlags = []) async throws -> RequestNameReply {
        if let names = core.pairNames {
            guard !name.isUnique else { throw BusError(.invalidArgs, "\(name) is a unique name") }
            return names.request(name, by: core.uniqueName, flags: flags)
        }
        let code = try await callBus("RequestName", name.rawValue, flags.rawValue).decode(UInt32.self)
        return try Self.reply(code, as: RequestNameReply.self)
    }

    /// Gives a well-known name back to the bus (on a peer connection, to the pair).
    public func releaseName(_ name: BusName) async throws -> ReleaseNameReply {
        if let names = core.pairNames { return names.release(name, by: core.uniqueName) }
        let code = try await callBus("ReleaseName", name.rawValue).decode(UInt32.self)
        return try Self.reply(code, as: ReleaseNameReply.self)
    }

    /// The unique name owning `name` now, or nil when nobody does (on a peer connection, either side).
    public func nameOwner(of name: BusName) async throws -> BusName? {
        if core.peer != nil { return core.peerOwner(of: name) }
        do {
            return try BusName(try await callBus("GetNameOwner", name.rawValue).decode(String.self))
        } catch let error as BusError where error.name == .nameHasNoOwner {
            return nil
        }
    }

    /// The process id of the connection owning `name` (the sender of a call, typically); on a peer
    /// connection, from the socket's credentials (`nameOwner(of:)` says whose).
    /// - Throws: `BusError` `NameHasNoOwner` when it is gone.
    public func processID(of name: BusName) async throws -> UInt32 {
        if core.peer != nil { return try core.peerCredentials(of: name).pid }
        return try await callBus("GetConnectionUnixProcessID", name.rawValue).decode(UInt32.self)
    }

    /// The Unix user id of the connection owning `name` (on a peer connection, as `processID(of:)`).
    /// - Throws: `BusError` `NameHasNoOwner` when it is gone.
    public func unixUser(of name: BusName) async throws -> UInt32 {
        if core.peer != nil { return try core.peerCredentials(of: name).uid }
        return try await callBus("GetConnectionUnixUser", name.rawValue).decode(UInt32.self)
    }

    func callBus<each Argument: BusValue>(_ member: MemberName, _ arguments: repeat each Argument) async throws -> Message {
        try await call(
            destination: .bus, path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus", member: member,
            repeat each arguments)
    }

    private static func reply<Reply: RawRepresentable<UInt32>>(_ code: UInt32, as type: Reply.Type) throws -> Reply {
        guard let reply = Reply(rawValue: code) else {
            throw ArgumentError(position: 0, expected: "u", found: "u", detail: "unknown reply code \(code)")
        }
        return reply
    }
}
