internal import CDBus
internal import Glibc
import Synchronization

/// The connection's `DBusWatch`es, which libdbus adds, removes and toggles through callbacks.
struct WatchList: ~Copyable {
    /// The watches' addresses; only the loop thread dereferences them, under the I/O gate.
    var watches: [UInt] = []
    /// Set by every callback, so that the loop rebuilds what it polls.
    var changed = true
}

/// What the loop polls and, for each polled descriptor after the wake eventfd, its watch.
private struct PollSet {
    var descriptors: [pollfd] = []
    var watched: [OpaquePointer] = []
}

// The loop thread: polls the watches' descriptors and the eventfd other threads write to wake it,
// lets libdbus read and write, dispatches what it read, expires calls and runs queued jobs.
extension ConnectionCore {
    /// The loop never sleeps longer than this, which is also the default call timeout: a call with
    /// that timeout then never needs to wake the loop to have its deadline seen.
    static let idleWake: Duration = .seconds(25)
    /// `idleWake` in nanoseconds, converted once (Duration's components take 128-bit division).
    private static let idleWakeNanoseconds = UInt64(idleWake.nanoseconds)

    /// Hooks this core into libdbus: watches, wake-ups, dispatch status and the one message filter.
    /// The context is this core, unretained: the loop thread keeps it alive until `unhookCallbacks`.
    func hookCallbacks() {
        let context = Unmanaged.passUnretained(self).toOpaque()
        let pointer = connection.pointer
        dbus_connection_set_watch_functions(
            pointer,
            { watch, context in
                let core = ConnectionCore.from(context)
                core.watches.withLock { $0.watches.append(UInt(bitPattern: watch)); $0.changed = true }
                core.loop.wakeUnlessOnLoop()
                return 1
            },
            { watch, context in
                let core = ConnectionCore.from(context)
                core.watches.withLock { list in
                    list.watches.removeAll { $0 == UInt(bitPattern: watch) }
                    list.changed = true
                }
                core.loop.wakeUnlessOnLoop()
            },
            { _, context in
                let core = ConnectionCore.from(context)
                core.watches.withLock { $0.changed = true }
                core.loop.wakeUnlessOnLoop()
            },
            context, nil)
        // libdbus calls this when a send from another thread left bytes for the loop to write.
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

    /// Unhooks every callback while this core is still alive: libdbus calls them until it is told not to.
    func unhookCallbacks() {
        let pointer = connection.pointer
        dbus_connection_remove_filter(pointer, filterTrampoline, Unmanaged.passUnretained(self).toOpaque())
        dbus_connection_set_watch_functions(pointer, nil, nil, nil, nil, nil)
        dbus_connection_set_wakeup_main_function(pointer, nil, nil, nil)
        dbus_connection_set_dispatch_status_function(pointer, nil, nil, nil)
    }

    fileprivate static func from(_ context: UnsafeMutableRawPointer?) -> ConnectionCore {
        Unmanaged<ConnectionCore>.fromOpaque(context!).takeUnretainedValue()
    }

    /// Runs until the connection is closed or lost.
    func runLoop() {
        var polled = PollSet()
        while !lifecycle.closeRequested {
            let now = monotonicNanoseconds()
            let wakeAt = calls.loopWakes(noLaterThan: now &+ Self.idleWakeNanoseconds)
            if watches.withLock({ list in defer { list.changed = false }; return list.changed }) {
                polled = pollSet()
            }
            let milliseconds = wakeAt <= now || loop.hasQueuedJobs
                ? 0 : Int32(min((wakeAt - now + 999_999) / 1_000_000, 60_000))
            let ready = poll(&polled.descriptors, nfds_t(polled.descriptors.count), milliseconds)
            if ready < 0 && errno != EINTR { return }
            if ready > 0 {
                if polled.descriptors[0].revents != 0 { loop.woke() }
                handleReadyWatches(&polled)
            }
            while dbus_connection_dispatch(connection.pointer) == DBUS_DISPATCH_DATA_REMAINS {}
            if peer != nil { noteAuthentication() }
            loop.runAfterInput()
            calls.expire(now: monotonicNanoseconds())
            loop.runQueuedJobs()
            if dbus_connection_get_is_connected(connection.pointer) == 0 { return }
        }
    }

    /// The wake eventfd, then every enabled watch with the events it wants.
    private func pollSet() -> PollSet {
        ioGate.withLock { _ in
            var set = PollSet()
            set.descriptors.append(pollfd(fd: loop.wakeDescriptor, events: Int16(POLLIN), revents: 0))
            for address in watches.withLock({ $0.watches }) {
                guard let watch = OpaquePointer(bitPattern: address), dbus_watch_get_enabled(watch) != 0 else { continue }
                let flags = dbus_watch_get_flags(watch)
                var events: Int16 = 0
                if flags & DBUS_WATCH_READABLE.rawValue != 0 { events |= Int16(POLLIN) }
                if flags & DBUS_WATCH_WRITABLE.rawValue != 0 { events |= Int16(POLLOUT) }
                set.descriptors.append(pollfd(fd: dbus_watch_get_unix_fd(watch), events: events, revents: 0))
                set.watched.append(watch)
            }
            return set
        }
    }

    /// Lets libdbus read or write on each watch poll found ready (`dbus_watch_handle`).
    private func handleReadyWatches(_ polled: inout PollSet) {
        for index in polled.watched.indices where polled.descriptors[index + 1].revents != 0 {
            let revents = Int32(polled.descriptors[index + 1].revents)
            polled.descriptors[index + 1].revents = 0
            var flags: UInt32 = 0
            if revents & Int32(POLLIN) != 0 { flags |= DBUS_WATCH_READABLE.rawValue }
            if revents & Int32(POLLOUT) != 0 { flags |= DBUS_WATCH_WRITABLE.rawValue }
            if revents & Int32(POLLERR) != 0 { flags |= DBUS_WATCH_ERROR.rawValue }
            if revents & Int32(POLLHUP) != 0 { flags |= DBUS_WATCH_HANGUP.rawValue }
            let watch = polled.watched[index]
            ioGate.withLock { _ in
                // A send on another thread may have found the socket dead and freed the watch.
                guard watches.withLock({ $0.watches.contains(UInt(bitPattern: watch)) }) else { return }
                _ = dbus_watch_handle(watch, flags)
            }
            // Handling may add or free watches; the rest of this list may be stale.
            if watches.withLock({ $0.changed }) { return }
        }
    }
}

/// The one filter every received message goes through (a named function, so it can be removed).
private func filterTrampoline(
    _ connection: OpaquePointer?, _ message: OpaquePointer?, _ context: UnsafeMutableRawPointer?
) -> DBusHandlerResult {
    ConnectionCore.from(context).receive(Message(reference: .message(borrowing: message!)))
    return DBUS_HANDLER_RESULT_HANDLED
}

/// `clock_gettime(CLOCK_MONOTONIC)` in nanoseconds.
func monotonicNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}

extension Duration {
    /// Whole nanoseconds, `Int64.max` for a duration beyond them.
    var nanoseconds: Int64 {
        let nanoseconds = self / .nanoseconds(1)
        return nanoseconds >= Double(Int64.max) ? .max : Int64(nanoseconds)
    }
}
