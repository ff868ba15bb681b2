/// A connection to a message bus.
///
/// One dedicated thread owns the libdbus connection and runs its dispatch loop; no Swift concurrency
/// thread ever blocks on the bus. Methods may be called from any task. Exported method handlers run
/// as their own tasks, so a handler awaiting another peer never stops the connection from
/// dispatching (that peer may call back in); those that never suspend may answer at once
/// (`Method`). The connection closes on `close()`, when the bus goes away, or when the last
/// reference to it is dropped.
public final class Connection: Sendable {
    let core: ConnectionCore

    /// The connection's own thread as an executor: tasks and actors that run there reach the bus
    /// without a thread hop (see `ConnectionExecutor` for the rule that comes with it).
    public var executor: ConnectionExecutor { core.executor }

    /// The name the bus gave this connection, such as `:1.42`; on a peer connection, the name this
    /// side goes by (`Connection.pair`).
    public var uniqueName: BusName { core.uniqueName }

    /// The bus's own id, its GUID, new each time a bus starts: what tells this bus from an earlier
    /// one at the same address, whose unique names mean nothing here. Nil on a peer connection.
    public var serverID: String? { core.serverID }

    /// On a peer connection, the name the other side goes by (what its messages arrive stamped
    /// with); nil on a bus.
    public var peerName: BusName? { core.peer }

    /// Connects to the bus at `address` (e.g. `unix:path=/run/user/1000/bus`) and registers with it.
    /// - Throws: `BusError` from libdbus when the address is malformed or nobody answers there.
    public init(address: String) async throws {
        core = try await ConnectionCore.open(address: address)
    }

    init(core: ConnectionCore) { self.core = core }

    /// Connects to the session bus found the usual way (`DBUS_SESSION_BUS_ADDRESS`, then
    /// `$XDG_RUNTIME_DIR/bus`).
    /// - Throws: `BusError` when there is no session bus to reach.
    public static func session() async throws -> Connection {
        Connection(core: try await ConnectionCore.open(address: nil))
    }

    deinit { core.requestClose() }

    /// Closes the connection: queued messages are written, calls still waiting fail with
    /// `Disconnected`, signal streams finish. Returns at once; idempotent.
    public func close() { core.requestClose() }

    /// Whether the connection is still open.
    public var isConnected: Bool { core.lifecycle.isOpen }

    /// Suspends until the connection is closed, by `close()` or because the bus went away (what a
    /// daemon waits on to exit cleanly).
    /// - Throws: `CancellationError` if the waiting task is cancelled first.
    public func waitUntilClosed() async throws -> ClosingReason {
        try await core.lifecycle.waitUntilClosed()
    }

    /// Calls a method and waits for its reply.
    ///
    /// - Parameters:
    ///   - arguments: the call's arguments, in order, each a `BusValue`.
    ///   - timeout: how long to wait for the reply; the call then fails with `NoReply`.
    /// - Returns: the reply; read it with `decode(_:)`.
    /// - Throws: `BusError` carrying the remote error's name and message; `BusError` `NoReply` after
    ///   the timeout; `Disconnected` if the connection closes first; `CancellationError` when the
    ///   calling task is cancelled (the reply, if one comes, is dropped).
    ///
    /// Runs where the caller does (an actor stays isolated while the call is built and sent, and
    /// resumes once, on its own executor, when the reply comes).
    ///
    /// - Parameter whileAwaiting: runs once the call has been sent, before the caller suspends:
    ///   work that the reply will need, done while the peer answers instead of after.
    /// - Parameter autoStart: false asks the bus not to start the destination's service: a name
    ///   without an owner then fails at once with `ServiceUnknown` (one round trip, not two to ask first).
    @inlinable  // specialized where called, as `Message.decode` is
    nonisolated(nonsending) public func call<each Argument: BusValue>(
        destination: BusName, path: ObjectPath, interface: InterfaceName, member: MemberName,
        _ arguments: repeat each Argument, timeout: Duration = .seconds(25), autoStart: Bool = true,
        whileAwaiting: () -> Void = {}
    ) async throws -> Message {
        try await call(
            destination: destination, path: path, interface: interface, member: member,
            writing: MessageWriter(writing: repeat each arguments), timeout: timeout, autoStart: autoStart,
            whileAwaiting: whileAwaiting)
    }

    @usableFromInline
    nonisolated(nonsending) func call(
        destination: BusName, path: ObjectPath, interface: InterfaceName, member: MemberName,
        writing arguments: consuming MessageWriter, timeout: Duration, autoStart: Bool, whileAwaiting: () -> Void
    ) async throws -> Message {
        let message = try OutgoingMessage.methodCall(
            destination: destination, path: path, interface: interface, member: member, autoStart: autoStart,
            writing: arguments)
        return try await core.sendWithReply(message, timeout: timeout, whileAwaiting: whileAwaiting)
    }

    /// Sends a method call that wants no reply (the no-reply flag is set; the peer sends none).
    /// - Throws: `BusError` when the connection is closed or an argument cannot travel.
    public func send<each Argument: BusValue>(
        destination: BusName, path: ObjectPath, interface: InterfaceName, member: MemberName,
        _ arguments: repeat each Argument
    ) throws {
        let message = try OutgoingMessage.methodCall(
            destination: destination, path: path, interface: interface, member: member, noReply: true,
            repeat each arguments)
        try core.send(message)
    }

    /// Emits a signal from `path`, to every subscriber, or only to `destination` when given.
    /// - Throws: `BusError` when the connection is closed or an argument cannot travel.
    public func emit<each Argument: BusValue>(
        path: ObjectPath, interface: InterfaceName, member: MemberName, _ arguments: repeat each Argument,
        destination: BusName? = nil
    ) throws {
        let message = try OutgoingMessage.signal(
            path: path, interface: interface, member: member, destination: destination, repeat each arguments)
        try core.send(message)
    }
}

/// Why a connection closed.
public enum ClosingReason: Sendable, Hashable {
    /// `close()` was called, or the connection was released.
    case closedLocally
    /// The bus (or the peer) went away.
    case disconnected(BusError)

    /// The error a call on the closed connection fails with.
    var error: BusError {
        switch self {
        case .closedLocally: BusError(.disconnected, "the connection was closed")
        case .disconnected(let error): error
        }
    }
}
