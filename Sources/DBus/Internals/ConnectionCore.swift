internal import CDBus
internal import Glibc
import Synchronization

/// The libdbus connection and the one thread that owns its dispatch loop.
///
/// The loop thread polls the connection's watch descriptors and an eventfd other threads write to
/// wake it, handles I/O, dispatches every received message through one filter, and expires calls
/// whose deadline passed. Any thread may send: messages are written to the socket at once, by this
/// core (libdbus reads; see `OutgoingMessage`), and what the socket does not take waits in the
/// gate's `SocketOutput` until the loop sees it writable. Rule that keeps this deadlock-free: no
/// libdbus function is called while `state` is locked.
///
/// `ioGate` holds that output and serialises every write to the socket and every libdbus call that
/// may do socket I/O (watch handling, send, flush, close): a message must never be written into the
/// middle of another, and any libdbus call may find the socket dead and free the connection's
/// watches, so the loop only touches a watch while holding the gate and after checking it is still
/// registered.
/// libdbus would answer `org.freedesktop.DBus.Peer` itself, writing from inside dispatch, outside
/// the gate; those calls are routed to us instead (`dbus_connection_set_route_peer_messages`).
final class ConnectionCore: Sendable {
    let connection: LibdbusReference
    let uniqueName: BusName
    /// The connection's socket, which sends write to directly.
    let socket: Int32
    let state: Mutex<CoreState>
    /// The jobs for the loop thread and the eventfd that wakes it; `executor` is its public face.
    let loop: LoopJobs
    let executor: ConnectionExecutor
    /// Starts method handlers' tasks on the loop's serial executor.
    let loopIsolation: LoopIsolation
    private let lastSerial = Atomic<UInt32>(1)
    private let ioGate = Mutex(SocketOutput())
    /// Whether `ioGate`'s output has bytes waiting, for the loop to poll the socket for writing.
    private let outputWaits = Atomic<Bool>(false)

    /// The loop never sleeps longer than this, which is also the default call timeout: a call with
    /// that timeout then never needs to wake the loop to have its deadline seen.
    static let idleWake: Duration = .seconds(25)
    /// `idleWake` in nanoseconds, converted once (Duration's components take 128-bit division).
    private static let idleWakeNanoseconds = UInt64(idleWake.nanoseconds)

    private init(connection: LibdbusReference, uniqueName: BusName, socket: Int32, wakeDescriptor: Int32) {
        self.connection = connection
        self.uniqueName = uniqueName
        self.socket = socket
        let loop = LoopJobs(wakeDescriptor: wakeDescriptor)
        self.loop = loop
        self.executor = ConnectionExecutor(loop: loop)
        self.loopIsolation = LoopIsolation(executor: executor)
        self.state = Mutex(CoreState())
    }

    // MARK: Opening

    /// Starts the loop thread, which connects (to `address`, or the session bus when nil), says Hello,
    /// and then runs the loop; returns once the bus has given the connection its unique name.
    static func open(address: String?) async throws -> ConnectionCore {
        try await withCheckedThrowingContinuation { continuation in
            let start = LoopStart(address: address, continuation: continuation)
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
        let address: String?
        let continuation: CheckedContinuation<ConnectionCore, any Error>
        init(address: String?, continuation: CheckedContinuation<ConnectionCore, any Error>) {
            self.address = address
            self.continuation = continuation
        }
    }

    /// Body of the loop thread: `dbus_connection_open_private` + `dbus_bus_register`
    /// (or `dbus_bus_get_private`), then the loop until the connection closes.
    private static func threadMain(_ start: LoopStart) {
        _ = dbus_threads_init_default()
        let (opened, failure) = withScratchError { error -> LibdbusReference? in
            if let address = start.address {
                guard let pointer = withValidatedCString(address, { dbus_connection_open_private($0, error) }) ?? nil
                else { return nil }
                let connection = LibdbusReference.privateConnection(adopting: pointer)
                return dbus_bus_register(pointer, error) != 0 ? connection : nil
            }
            return dbus_bus_get_private(DBUS_BUS_SESSION, error).map(LibdbusReference.privateConnection(adopting:))
        }
        guard let connection = opened, let name = dbus_bus_get_unique_name(connection.pointer) else {
            let error = failure.map { BusError(ErrorName(unchecked: $0.name), $0.message) }
                ?? BusError(.badAddress, "cannot connect to \(start.address ?? "the session bus")")
            start.continuation.resume(throwing: error)
            return
        }
        dbus_connection_set_exit_on_disconnect(connection.pointer, 0)
        dbus_connection_set_route_peer_messages(connection.pointer, 1)
        var socket: Int32 = -1
        guard dbus_connection_get_socket(connection.pointer, &socket) != 0 else {
            start.continuation.resume(throwing: BusError(.failed, "the bus connection has no socket to write to"))
            return
        }
        let descriptor = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        guard descriptor >= 0 else {
            start.continuation.resume(throwing: BusError(.noMemory, "cannot create an eventfd (errno \(errno))"))
            return
        }
        let core = ConnectionCore(
            connection: connection, uniqueName: BusName(unchecked: String(cString: name)), socket: socket,
            wakeDescriptor: descriptor)
        core.installCallbacks()
        start.continuation.resume(returning: core)
        core.runLoop()
        core.tearDown()
        close(descriptor)
    }

    // MARK: libdbus callbacks (context: this core, unretained; the loop thread keeps it alive)

    private func installCallbacks() {
        let context = Unmanaged.passUnretained(self).toOpaque()
        let pointer = connection.pointer
        dbus_connection_set_watch_functions(
            pointer,
            { watch, context in
                let core = ConnectionCore.from(context)
                let address = UInt(bitPattern: watch)
                core.state.withLock { $0.watches.append(address); $0.watchesChanged = true }
                core.loop.wakeUnlessOnLoop()
                return 1
            },
            { watch, context in
                let core = ConnectionCore.from(context)
                let address = UInt(bitPattern: watch)
                core.state.withLock { state in
                    state.watches.removeAll { $0 == address }
                    state.watchesChanged = true
                }
                core.loop.wakeUnlessOnLoop()
            },
            { _, context in
                let core = ConnectionCore.from(context)
                core.state.withLock { $0.watchesChanged = true }
                core.loop.wakeUnlessOnLoop()
            },
            context, nil)
        // libdbus calls this when a send from another thread could not write everything at once.
        dbus_connection_set_wakeup_main_function(
            pointer, { context in ConnectionCore.from(context).loop.wakeUnlessOnLoop() }, context, nil)
        dbus_connection_set_dispatch_status_function(
            pointer,
            { _, status, context in
                if status == DBUS_DISPATCH_DATA_REMAINS { ConnectionCore.from(context).loop.wakeUnlessOnLoop() }
            },
            context, nil)
        // No timeout functions: libdbus only needs them for its own pending calls, which we never use.
        _ = dbus_connection_add_filter(pointer, filterTrampoline, context, nil)
    }

    fileprivate static func from(_ context: UnsafeMutableRawPointer?) -> ConnectionCore {
        Unmanaged<ConnectionCore>.fromOpaque(context!).takeUnretainedValue()
    }

    // MARK: The loop

    private func runLoop() {
        var descriptors: [pollfd] = []
        var watched: [OpaquePointer] = []
        while true {
            let now = monotonicNanoseconds()
            let plan = state.withLock { state in
                state.loopWakesAt = min(state.earliestDeadline, now &+ Self.idleWakeNanoseconds)
                let rebuild = state.watchesChanged
                state.watchesChanged = false
                return (rebuild: rebuild, wakeAt: state.loopWakesAt, closing: state.closeRequested)
            }
            if plan.closing { return }
            let mustNotSleep = loop.hasQueuedJobs
            if plan.rebuild {
                (descriptors, watched) = ioGate.withLock { _ in
                    var descriptors = [pollfd(fd: loop.wakeDescriptor, events: Int16(POLLIN), revents: 0)]
                    var watched: [OpaquePointer] = []
                    for address in state.withLock({ $0.watches }) {
                        guard let watch = OpaquePointer(bitPattern: address), dbus_watch_get_enabled(watch) != 0
                        else { continue }
                        let flags = dbus_watch_get_flags(watch)
                        var events: Int16 = 0
                        if flags & DBUS_WATCH_READABLE.rawValue != 0 { events |= Int16(POLLIN) }
                        if flags & DBUS_WATCH_WRITABLE.rawValue != 0 { events |= Int16(POLLOUT) }
                        descriptors.append(pollfd(fd: dbus_watch_get_unix_fd(watch), events: events, revents: 0))
                        watched.append(watch)
                    }
                    return (descriptors, watched)
                }
            }
            let milliseconds = plan.wakeAt <= now || mustNotSleep ? 0 : Int32(min((plan.wakeAt - now + 999_999) / 1_000_000, 60_000))
            let flushing = outputWaits.load(ordering: .acquiring)
            if flushing { descriptors.append(pollfd(fd: socket, events: Int16(POLLOUT), revents: 0)) }
            let ready = poll(&descriptors, nfds_t(descriptors.count), milliseconds)
            if ready < 0 && errno != EINTR { return }
            if flushing, descriptors.removeLast().revents != 0 { flushOutput() }
            if ready > 0 {
                if descriptors[0].revents != 0 { loop.woke() }
                for index in watched.indices where descriptors[index + 1].revents != 0 {
                    let revents = Int32(descriptors[index + 1].revents)
                    var flags: UInt32 = 0
                    if revents & Int32(POLLIN) != 0 { flags |= DBUS_WATCH_READABLE.rawValue }
                    if revents & Int32(POLLOUT) != 0 { flags |= DBUS_WATCH_WRITABLE.rawValue }
                    if revents & Int32(POLLERR) != 0 { flags |= DBUS_WATCH_ERROR.rawValue }
                    if revents & Int32(POLLHUP) != 0 { flags |= DBUS_WATCH_HANGUP.rawValue }
                    descriptors[index + 1].revents = 0
                    let watch = watched[index]
                    ioGate.withLock { _ in
                        // A send on another thread may have found the socket dead and dropped the watch.
                        guard state.withLock({ $0.watches.contains(UInt(bitPattern: watch)) }) else { return }
                        _ = dbus_watch_handle(watch, flags)
                    }
                    // Handling may add or free watches; the rest of this list may be stale.
                    if state.withLock({ $0.watchesChanged }) { break }
                }
            }
            while dbus_connection_dispatch(connection.pointer) == DBUS_DISPATCH_DATA_REMAINS {}
            expireCalls(now: monotonicNanoseconds())
            loop.runQueuedJobs()
            if dbus_connection_get_is_connected(connection.pointer) == 0 { return }
        }
    }


    // MARK: Closing

    /// Asks the loop to close the connection; idempotent, returns at once.
    func requestClose() {
        let first = state.withLock { state in
            defer { state.closeRequested = true }
            return !state.closeRequested
        }
        if first { loop.wake() }
    }

    /// On the loop thread after the loop ended: writes what is queued, closes the connection and
    /// fails or finishes everything still waiting on it.
    private func tearDown() {
        let pointer = connection.pointer
        let connected = dbus_connection_get_is_connected(pointer) != 0
        if connected {
            ioGate.withLock { output in
                output.drain(on: socket, timeout: 1_000)
                dbus_connection_flush(pointer)
            }
        }
        let reason: ClosingReason = connected
            ? .closedLocally : .disconnected(BusError(.disconnected, "the bus closed the connection"))
        ioGate.withLock { _ in dbus_connection_close(pointer) }
        // Unhook every callback while this core is still alive: libdbus calls them until it is told not to.
        dbus_connection_remove_filter(pointer, filterTrampoline, Unmanaged.passUnretained(self).toOpaque())
        dbus_connection_set_watch_functions(pointer, nil, nil, nil, nil, nil)
        dbus_connection_set_wakeup_main_function(pointer, nil, nil, nil)
        dbus_connection_set_dispatch_status_function(pointer, nil, nil, nil)
        let leftovers = state.withLock { state in
            state.closingReason = reason
            state.closeRequested = true
            // Moved out, not cleared in place: releasing a handler may release a Connection, whose
            // deinit takes this lock.
            let taken = (state.pending, state.subscriptions, state.closeWaiters, state.objects)
            state.pending = [:]
            state.subscriptions = [:]
            state.closeWaiters = [:]
            state.objects = [:]
            return taken
        }
        let error = reason.error
        for pending in leftovers.0.values { pending.continuation.resume(throwing: error) }
        for subscription in leftovers.1.values {
            if case .disconnected(let error) = reason { subscription.finish(error) } else { subscription.finish(nil) }
        }
        for waiter in leftovers.2.values { waiter.resume(returning: reason) }
        loop.loopEnded()
    }

    // MARK: Sending

    /// Sends `message` with the next serial.
    /// - Throws: `BusError` (`Disconnected`) once the connection is closed or when the socket fails.
    func send(_ message: OutgoingMessage) throws(BusError) {
        if let reason = state.withLock({ $0.closingReason }) { throw reason.error }
        try sendNow(message, serial: nextSerial())
    }

    /// Sends a method call and suspends until its reply, an error reply, the deadline, cancellation
    /// or disconnection, whichever comes first; the continuation is resumed exactly once, by whoever
    /// removes the call from `state.pending`.
    ///
    /// Runs isolated to the caller's actor, if any, and resumes there: the operation closure uses
    /// `isolation`, which keeps it from being a nonisolated closure that hops to the global executor.
    ///
    /// `whileAwaiting` runs once the call is on its way, before the task suspends.
    func sendWithReply(
        _ message: OutgoingMessage, timeout: Duration, whileAwaiting: () -> Void = {},
        isolation: isolated (any Actor)? = #isolation
    ) async throws -> Message {
        let serial = nextSerial()
        let deadline = monotonicNanoseconds() &+ UInt64(max(timeout.nanoseconds, 0))
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation(isolation: isolation) { (continuation: CheckedContinuation<Message, any Error>) in
                let pending = PendingCall(continuation: continuation, deadline: deadline, timeout: timeout,
                                          member: message.member)
                let registration: Result<Bool, BusError> = state.withLock { state in
                    if let reason = state.closingReason { return .failure(reason.error) }
                    state.pending[serial] = pending
                    state.earliestDeadline = min(state.earliestDeadline, deadline)
                    return .success(deadline < state.loopWakesAt)
                }
                let mustWake: Bool
                switch registration {
                case .failure(let error):
                    continuation.resume(throwing: error)
                    return
                case .success(let wake): mustWake = wake
                }
                if Task.isCancelled {
                    finishCall(serial, throwing: CancellationError())
                    return
                }
                do throws(BusError) { try sendNow(message, serial: serial) } catch {
                    finishCall(serial, throwing: error)
                    return
                }
                if mustWake { loop.wakeUnlessOnLoop() }
                whileAwaiting()
            }
        } onCancel: {
            finishCall(serial, throwing: CancellationError())
        }
    }

    /// Writes `message` to the socket, through the I/O gate, after whatever waits in the gate's
    /// output; what the socket does not take at once waits there for the loop. When libdbus holds
    /// bytes of its own not yet sent, it queues a copy behind them instead, keeping the stream in order.
    private func sendNow(_ message: OutgoingMessage, serial: UInt32) throws(BusError) {
        try ioGate.withLock { output throws(BusError) in
            let pointer = connection.pointer
            // Once libdbus has seen the bus go, it has closed the socket; its number may be reused.
            guard dbus_connection_get_is_connected(pointer) != 0 else {
                throw BusError(.disconnected, "the bus closed the connection")
            }
            if output.isEmpty, dbus_connection_has_messages_to_send(pointer) != 0 {
                let copy = try message.libdbusMessage(serial: serial)
                guard dbus_connection_send(pointer, copy.reference.pointer, nil) != 0 else {
                    throw BusError(.noMemory, "cannot queue the message")
                }
                return
            }
            if let failure = output.send(message, serial: serial, on: socket) {
                output.discard()
                throw brokenSocket(failure)
            }
            if !output.isEmpty, !outputWaits.exchange(true, ordering: .acquiringAndReleasing) {
                loop.wakeUnlessOnLoop()
            }
        }
    }

    /// On the loop thread, once the socket is writable: writes what waits in the output.
    private func flushOutput() {
        ioGate.withLock { output in
            if let failure = output.flush(on: socket) {
                output.discard()
                _ = brokenSocket(failure)
            }
            outputWaits.store(!output.isEmpty, ordering: .releasing)
        }
    }

    /// Shuts down a socket that failed while a message may be part written: nothing after it would
    /// make sense to the bus. libdbus then sees the connection close.
    private func brokenSocket(_ failure: Int32) -> BusError {
        shutdown(socket, Int32(SHUT_RDWR))
        return BusError(.disconnected, "writing to the bus failed (\(String(cString: strerror(failure))))")
    }

    private func finishCall(_ serial: UInt32, throwing error: any Error) {
        state.withLock { $0.pending.removeValue(forKey: serial) }?.continuation.resume(throwing: error)
    }

    private func nextSerial() -> UInt32 {
        // Serial 0 is invalid; wrapping after four billion messages skips it.
        var serial = lastSerial.add(1, ordering: .relaxed).newValue
        while serial == 0 { serial = lastSerial.add(1, ordering: .relaxed).newValue }
        return serial
    }

    private func expireCalls(now: UInt64) {
        let expired: [PendingCall] = state.withLock { state in
            guard now >= state.earliestDeadline else { return [] }
            var expired: [PendingCall] = []
            var earliest = UInt64.max
            for (serial, pending) in state.pending {
                if pending.deadline <= now {
                    expired.append(pending)
                    state.pending.removeValue(forKey: serial)
                } else {
                    earliest = min(earliest, pending.deadline)
                }
            }
            state.earliestDeadline = earliest
            return expired
        }
        for pending in expired {
            let what = pending.member.map { "\($0)" } ?? "the call"
            pending.continuation.resume(throwing: BusError(.noReply, "no reply to \(what) within \(pending.timeout)"))
        }
    }

    // MARK: Receiving (on the loop thread)

    fileprivate func filter(_ pointer: OpaquePointer) -> DBusHandlerResult {
        let message = Message(reference: .message(borrowing: pointer))
        switch message.kind {
        case .methodReturn, .error:
            guard let pending = state.withLock({ $0.pending.removeValue(forKey: message.replySerial) }) else {
                return DBUS_HANDLER_RESULT_HANDLED  // a late reply to a call that timed out or was cancelled
            }
            if let error = message.carriedError {
                pending.continuation.resume(throwing: error)
            } else {
                pending.continuation.resume(returning: message)
            }
        case .signal:
            deliverSignal(message)
        case .methodCall:
            receiveMethodCall(message)
        }
        return DBUS_HANDLER_RESULT_HANDLED
    }
}

/// The one filter every received message goes through (a named function, so it can be removed).
private func filterTrampoline(
    _ connection: OpaquePointer?, _ message: OpaquePointer?, _ context: UnsafeMutableRawPointer?
) -> DBusHandlerResult {
    ConnectionCore.from(context).filter(message!)
}

/// Everything the loop and the callers share, guarded by `ConnectionCore.state`.
struct CoreState: ~Copyable {
    var pending: [UInt32: PendingCall] = [:]
    /// Earliest deadline among `pending`; may be stale-early (only ever too early, never too late).
    var earliestDeadline: UInt64 = .max
    /// When the loop will wake at the latest; a call due sooner must wake it.
    var loopWakesAt: UInt64 = 0
    /// The connection's `DBusWatch` pointers, as addresses (only the loop thread dereferences them).
    var watches: [UInt] = []
    var watchesChanged = true
    var subscriptions: [Int: Subscription] = [:]
    var nextSubscriptionID = 0
    var objects: [ObjectPath: ExportedObject] = [:]
    var closeWaiters: [Int: CheckedContinuation<ClosingReason, any Error>] = [:]
    var nextWaiterID = 0
    var closeRequested = false
    /// Set once the loop has ended; after that nothing new may wait on the connection.
    var closingReason: ClosingReason?
}

struct PendingCall {
    let continuation: CheckedContinuation<Message, any Error>
    let deadline: UInt64
    let timeout: Duration
    let member: MemberName?
}

/// `clock_gettime(CLOCK_MONOTONIC)` in nanoseconds.
func monotonicNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}

extension Duration {
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds.multipliedReportingOverflow(by: 1_000_000_000).overflow
            ? .max : seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
