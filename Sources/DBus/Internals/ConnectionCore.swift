internal import CDBus
internal import Glibc
import Synchronization

/// A libdbus connection and the one thread that owns its loop (`ConnectionLoop.swift`).
///
/// libdbus owns the connection: it authenticates, reads, writes and numbers every message. Any
/// thread may send (`dbus_connection_send` writes at once when it can and leaves the rest for the
/// loop); replies are matched to calls in flight (`CallsInFlight`), signals handed to
/// subscriptions (`SignalSubscriptions`) and calls to exported objects (`ExportedObjects`), all from
/// the one filter the loop dispatches through.
///
/// `ioGate` keeps every libdbus call that may do socket I/O (a send, watch handling, flush, close)
/// apart from the loop's handling of a watch: any of them may find the socket dead and free the
/// connection's watches, so the loop handles a watch only under the gate and after checking it is
/// still registered. Locks are taken in one order — a call's registration, then the gate, then
/// (inside libdbus's callbacks) the watch list — and the filter runs under none of them.
final class ConnectionCore: Sendable {
    let connection: LibdbusReference
    let uniqueName: BusName
    /// The bus's GUID (new each time a bus starts); nil when libdbus has none for the connection.
    let serverID: String?
    /// The other side's name on a peer connection (`Connection.pair`); nil on a bus.
    let peer: BusName?
    /// The names the sides of a pair own, shared by both (`PairNames.swift`); nil on a bus.
    let pairNames: PairNames?
    /// The jobs for the loop thread and the eventfd that wakes it; `executor` is its public face.
    let loop: LoopJobs
    let executor: ConnectionExecutor
    /// Starts method handlers' tasks on the loop's serial executor.
    let loopIsolation: LoopIsolation
    let watches = Mutex(WatchList())
    let ioGate = Mutex(())
    let calls = CallsInFlight()
    let subscriptions = SignalSubscriptions()
    let objects = ExportedObjects()
    let lifecycle = ConnectionLifecycle()
    /// Set once the connection watches the bus as a monitor (`Monitoring.swift`).
    let monitor = Mutex<BusMonitor?>(nil)

    /// On a peer connection, whether libdbus has authenticated it yet, and who waits for that
    /// (`PeerPairing.swift`); what `Hello` is on a bus.
    let authentication = Mutex(PeerAuthentication())

    private init(
        connection: LibdbusReference, uniqueName: BusName, serverID: String?, peer: BusName?, pairNames: PairNames?, wakeDescriptor: Int32
    ) {
        self.connection = connection
        self.uniqueName = uniqueName
        self.serverID = serverID
        self.peer = peer
        self.pairNames = pairNames
        let loop = LoopJobs(wakeDescriptor: wakeDescriptor)
        self.loop = loop
        self.executor = ConnectionExecutor(loop: loop)
        self.loopIsolation = LoopIsolation(executor: executor)
    }

    // MARK: Opening

    /// What a loop thread opened: the connection, the name it goes by and, on a peer connection, the
    /// other side's name and the names the pair owns.
    struct Opened: Sendable {
        let connection: LibdbusReference
        let uniqueName: BusName
        var serverID: String? = nil
        var peer: BusName? = nil
        var pairNames: PairNames? = nil
    }

    /// Starts the loop thread, which connects (to `address`, or the session bus when nil), says Hello,
    /// and then runs the loop; returns once the bus has given the connection its unique name.
    static func open(address: String?) async throws -> ConnectionCore {
        try await start { () throws(BusError) in try connectToBus(address: address) }
    }

    /// Starts a loop thread that runs `opening`, then the loop on what it opened; returns once the
    /// loop runs (a peer connection may not be authenticated yet: `authenticated()`).
    static func start(_ opening: @escaping @Sendable () throws(BusError) -> Opened) async throws -> ConnectionCore {
        try await withCheckedThrowingContinuation { continuation in
            let start = LoopStart(opening: opening, continuation: continuation)
            var thread = pthread_t()
            let created = pthread_create(&thread, nil, { argument in
                let start = Unmanaged<LoopStart>.fromOpaque(argument!).takeRetainedValue()
                ConnectionCore.threadMain(start)
                return nil
            }, Unmanaged.passRetained(start).toOpaque())
            if created != 0 {
                Unmanaged.passUnretained(start).release()
                continuation.resume(throwing: BusError(.noMemory, "cannot start the connection thread (\(created))"))
            } else {
                pthread_detach(thread)
            }
        }
    }

    private final class LoopStart: Sendable {
        let opening: @Sendable () throws(BusError) -> Opened
        let continuation: CheckedContinuation<ConnectionCore, any Error>
        init(opening: @escaping @Sendable () throws(BusError) -> Opened, continuation: CheckedContinuation<ConnectionCore, any Error>) {
            self.opening = opening
            self.continuation = continuation
        }
    }

    /// `dbus_connection_open_private` + `dbus_bus_register` (or `dbus_bus_get_private`).
    private static func connectToBus(address: String?) throws(BusError) -> Opened {
        let (opened, failure) = withScratchError { error -> LibdbusReference? in
            if let address {
                guard let pointer = withValidatedCString(address, { dbus_connection_open_private($0, error) }) ?? nil
                else { return nil }
                let connection = LibdbusReference.privateConnection(adopting: pointer)
                return dbus_bus_register(pointer, error) != 0 ? connection : nil
            }
            return dbus_bus_get_private(DBUS_BUS_SESSION, error).map(LibdbusReference.privateConnection(adopting:))
        }
        guard let connection = opened, let name = dbus_bus_get_unique_name(connection.pointer) else {
            throw failure.map { BusError(ErrorName(unchecked: $0.name), $0.message) }
                ?? BusError(.badAddress, "cannot connect to \(address ?? "the session bus")")
        }
        let serverID = dbus_connection_get_server_id(connection.pointer).map { id in
            defer { dbus_free(id) }
            return String(cString: id)
        }
        return Opened(connection: connection, uniqueName: BusName(unchecked: String(cString: name)), serverID: serverID)
    }

    /// Body of the loop thread: `opening`, then the loop until the connection closes.
    private static func threadMain(_ start: LoopStart) {
        _ = dbus_threads_init_default()
        let opened: Opened
        do { opened = try start.opening() } catch {
            start.continuation.resume(throwing: error)
            return
        }
        dbus_connection_set_exit_on_disconnect(opened.connection.pointer, 0)
        let descriptor = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        guard descriptor >= 0 else {
            start.continuation.resume(throwing: BusError(.noMemory, "cannot create an eventfd (errno \(errno))"))
            return
        }
        let core = ConnectionCore(
            connection: opened.connection, uniqueName: opened.uniqueName, serverID: opened.serverID, peer: opened.peer,
            pairNames: opened.pairNames, wakeDescriptor: descriptor)
        core.hookCallbacks()
        start.continuation.resume(returning: core)
        core.runLoop()
        core.tearDown()
        close(descriptor)
    }

    // MARK: Closing

    /// Asks the loop to close the connection; idempotent, returns at once.
    func requestClose() {
        if lifecycle.requestClose() { loop.wake() }
    }

    /// On the loop thread after the loop ended: writes what is queued, closes the connection and
    /// fails or finishes everything still waiting on it.
    private func tearDown() {
        let pointer = connection.pointer
        let connected = dbus_connection_get_is_connected(pointer) != 0
        ioGate.withLock { _ in
            if connected { dbus_connection_flush(pointer) }
            dbus_connection_close(pointer)
        }
        unhookCallbacks()
        let reason: ClosingReason = connected
            ? .closedLocally : .disconnected(BusError(.disconnected, "the bus closed the connection"))
        calls.end(with: reason.error)
        if peer != nil { noteAuthentication(endedBy: reason) }
        // The peer went away: as a bus would, the pair tells what names went with it.
        if case .disconnected = reason, let peer, let pairNames { pairNames.left(peer, telling: subscriptions) }
        subscriptions.end(reason)
        monitor.withLock { $0.take() }?.end(reason)
        // Released outside any lock: releasing a handler may release a Connection.
        _ = objects.removeAll()
        lifecycle.ended(reason)
        loop.loopEnded()
    }

    // MARK: Sending

    /// Sends `message`; libdbus gives it the next serial.
    /// - Throws: `BusError` (`Disconnected`) once the connection is closed.
    func send(_ message: OutgoingMessage) throws(BusError) {
        if let reason = lifecycle.closingReason { throw reason.error }
        if monitor.withLock({ $0?.isSealed ?? false }) { throw BusError(.accessDenied, "a monitor connection sends nothing") }
        _ = try sendNow(message)
    }

    /// Sends a method call and suspends until its reply, an error reply, the deadline, cancellation
    /// or disconnection, whichever comes first; the continuation is resumed exactly once, by whoever
    /// removes the call from `calls`.
    ///
    /// Runs isolated to the caller's actor, if any, and resumes there: the operation closure uses
    /// `isolation`, which keeps it from being a nonisolated closure that hops to the global executor.
    ///
    /// `whileAwaiting` runs once the call is on its way, before the task suspends.
    func sendWithReply(
        _ message: OutgoingMessage, timeout: Duration, whileAwaiting: () -> Void = {},
        isolation: isolated (any Actor)? = #isolation
    ) async throws -> Message {
        let deadline = monotonicNanoseconds() &+ UInt64(max(timeout.nanoseconds, 0))
        let ticket = CallTicket()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation(isolation: isolation) { (continuation: CheckedContinuation<Message, any Error>) in
                let pending = PendingCall(continuation: continuation, deadline: deadline, timeout: timeout,
                                          member: message.member)
                let registered: (serial: UInt32, wakeLoop: Bool)
                do throws(BusError) {
                    registered = try calls.register(pending) { () throws(BusError) in try sendNow(message) }
                } catch {
                    continuation.resume(throwing: error)
                    return
                }
                ticket.sent(as: registered.serial)
                // A cancellation that came before the serial was known found nothing to cancel.
                if Task.isCancelled {
                    calls.fail(registered.serial, with: CancellationError())
                    return
                }
                if registered.wakeLoop { loop.wakeUnlessOnLoop() }
                whileAwaiting()
            }
        } onCancel: {
            let serial = ticket.serial
            if serial != 0 { calls.fail(serial, with: CancellationError()) }
        }
    }

    /// Hands `message` to libdbus (`dbus_connection_send`), through the I/O gate, and returns the
    /// serial libdbus gave it. What the socket does not take at once, the loop writes later.
    private func sendNow(_ message: OutgoingMessage) throws(BusError) -> UInt32 {
        if peer != nil, try !peerReceives(message) { return 0 }
        return try ioGate.withLock { _ throws(BusError) in
            let pointer = connection.pointer
            guard dbus_connection_get_is_connected(pointer) != 0 else {
                throw BusError(.disconnected, "the bus closed the connection")
            }
            var serial: UInt32 = 0
            guard dbus_connection_send(pointer, message.message.reference.pointer, &serial) != 0 else {
                throw BusError(.noMemory, "libdbus cannot queue the message")
            }
            return serial
        }
    }

    // MARK: Receiving (on the loop thread)

    /// Every message the bus sends this connection, from the filter.
    func receive(_ message: Message) {
        if let peer { message.stamp(sender: peer) }
        if let watching = monitor.withLock({ $0 }), watching.takes(message, ownName: uniqueName) { return }
        switch message.kind {
        case .methodReturn, .error:
            // No call: a late reply to a call that timed out or was cancelled.
            guard let pending = calls.complete(message.replySerial) else { return }
            if let error = message.carriedError {
                pending.continuation.resume(throwing: error)
            } else {
                pending.continuation.resume(returning: message)
            }
        case .signal:
            subscriptions.deliver(message)
        case .methodCall:
            receiveMethodCall(message)
        }
    }
}
