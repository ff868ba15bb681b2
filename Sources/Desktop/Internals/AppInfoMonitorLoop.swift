internal import CGIO
import Synchronization

/// GIO's `GAppInfoMonitor` on a thread of its own that runs a GLib main loop for it alone.
///
/// The monitor emits `changed` in the main context it was created in, so something must iterate that
/// context; a daemon whose own loop is libdbus's has none. The thread lives as long as the process.
/// GIO refreshes its own caches from its worker thread; `changed` tells us that happened.
enum AppInfoMonitorLoop {
    /// Handlers to call on each change, registered before or after the loop started.
    private static let handlers = Mutex<[@Sendable () -> Void]>([])
    private static let started = Atomic<Bool>(false)
    /// Whether the monitor exists and is connected, and who awaits that.
    private static let watching = Mutex<(ready: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    /// Calls `handler` (on the monitor's thread) whenever installed applications or defaults change;
    /// returns once the monitor exists. GIO tells only the monitors that exist when it notices a
    /// change, then stops watching until it is asked again: a change before that would be lost for
    /// good to a cache of answers, which never asks again.
    static func add(_ handler: @escaping @Sendable () -> Void) async {
        handlers.withLock { $0.append(handler) }
        if started.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged {
            var thread = pthread_t()
            let created = pthread_create(&thread, nil, { _ in
                AppInfoMonitorLoop.run()
                return nil
            }, nil)
            precondition(created == 0, "cannot start the application monitor thread: error \(created)")
            pthread_detach(thread)
        }
        await withCheckedContinuation { waiter in
            let ready = watching.withLock { state in
                if !state.ready { state.waiters.append(waiter) }
                return state.ready
            }
            if ready { waiter.resume() }
        }
    }

    static func fire() {
        for handler in handlers.withLock({ $0 }) { handler() }
    }

    /// `g_main_context_new`, `g_main_context_push_thread_default`, `g_app_info_monitor_get` (transfer
    /// full, kept for the process's life), `g_signal_connect_data`, `g_main_loop_run`.
    private static func run() {
        let context = gio.g_main_context_new()
        gio.g_main_context_push_thread_default(context)
        let monitor = gio.g_app_info_monitor_get()
        let changed: @convention(c) (OpaquePointer?, gpointer?) -> Void = { _, _ in AppInfoMonitorLoop.fire() }
        _ = gio.g_signal_connect_data(
            gpointer(monitor), "changed", unsafeBitCast(changed, to: GCallback.self), nil, nil, GConnectFlags(rawValue: 0))
        let waiters = watching.withLock { state in
            state.ready = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
        let loop = gio.g_main_loop_new(context, 0)
        gio.g_main_loop_run(loop)
    }
}
