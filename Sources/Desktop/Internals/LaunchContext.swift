internal import CGIO
internal import CLinux
internal import Glibc

/// Key under which a launch context keeps the startup id its `get_startup_notify_id` returns.
private let startupIDDataKey = "waypost-startup-id"

/// `get_startup_notify_id` for our launch contexts: a copy (transfer full) of the token stored on
/// the context. GIO asks it only for `StartupNotify=true` entries, and puts the answer into the
/// D-Bus activation `platform_data` (`desktop-startup-id`; GLib ≥ 2.76 adds `activation-token`) or the
/// child's `DESKTOP_STARTUP_ID`. `g_object_get_data`, `g_strdup`.
private let startupNotifyID: @convention(c) (
    UnsafeMutablePointer<GAppLaunchContext>?, OpaquePointer?, UnsafeMutablePointer<GList>?
) -> UnsafeMutablePointer<gchar>? = { context, _, _ in
    guard let context, let stored = gio.g_object_get_data(UnsafeMutablePointer<GObject>(OpaquePointer(context)), startupIDDataKey)
    else { return nil }
    return gio.g_strdup(stored.assumingMemoryBound(to: gchar.self))
}

/// A `GAppLaunchContext` subclass whose only change is `get_startup_notify_id`: the base class
/// answers NULL, which would drop the token on the D-Bus activation path. Registered once per
/// process (a global is initialised exactly once). `g_type_register_static_simple`.
private let tokenCarryingContextType: GType = gio.g_type_register_static_simple(
    gio.g_app_launch_context_get_type(),
    "WaypostTokenLaunchContext",
    guint(MemoryLayout<GAppLaunchContextClass>.size),
    { classPointer, _ in
        guard let classPointer else { return }
        classPointer.assumingMemoryBound(to: GAppLaunchContextClass.self).pointee.get_startup_notify_id = startupNotifyID
    },
    guint(MemoryLayout<GAppLaunchContext>.size),
    nil,
    GTypeFlags(rawValue: 0))

/// Owns a launch context (transfer full from `g_object_new_with_properties`, released with
/// `g_object_unref`) carrying the environment and startup id a launch hands on.
final class LaunchContextReference {
    let pointer: UnsafeMutablePointer<GAppLaunchContext>

    /// - Parameters:
    ///   - environment: variables to set (value) or remove (nil) in launched processes' environment.
    ///   - startupID: what GIO passes as startup id / activation token to `StartupNotify` entries.
    init(environment: [(name: String, value: String?)], startupID: String?) {
        let object = gio.g_object_new_with_properties(tokenCarryingContextType, 0, nil, nil)!
        pointer = UnsafeMutableRawPointer(object).assumingMemoryBound(to: GAppLaunchContext.self)
        for (name, value) in environment {
            if let value {
                gio.g_app_launch_context_setenv(pointer, name, value)
            } else {
                gio.g_app_launch_context_unsetenv(pointer, name)
            }
        }
        if let startupID {
            gio.g_object_set_data_full(
                UnsafeMutablePointer<GObject>(OpaquePointer(pointer)), startupIDDataKey, gio.g_strdup(startupID), gio.g_free)
        }
    }

    deinit { gio.g_object_unref(gpointer(pointer)) }
}

/// Launches a loaded entry through GIO: D-Bus activation for `DBusActivatable` entries (when a session
/// bus is reachable), otherwise one spawn per command line that the field codes make (one per URI for
/// `%u`/`%f`). One fork per program (`G_SPAWN_DO_NOT_REAP_CHILD`: GLib's double fork, which leaves
/// children to init, costs a launch a second copy of the daemon's page tables, about 1 ms), each
/// child reaped once it exits (`reapWhenExited`). No descriptor beyond 0–2 is inherited (no
/// `G_SPAWN_LEAVE_DESCRIPTORS_OPEN`). Each starts with no signal blocked
/// and default dispositions (`waypost_reset_signals` between fork and exec): the calling thread's
/// mask would be inherited, and an app that blocks SIGTERM outlives `kill` and the session's end.
/// - Returns: the pid of each spawned program, in launch order; empty after D-Bus activation.
/// `g_desktop_app_info_launch_uris_as_manager`.
func launchEntry(
    _ entry: AppInfoReference, uris: [String], context: LaunchContextReference
) throws(GLibFailure) -> [Int32] {
    var list: UnsafeMutablePointer<GList>? = nil
    for uri in uris { list = gio.g_list_append(list, gio.g_strdup(uri)) }
    defer { gio.g_list_free_full(list, gio.g_free) }

    var pids: [Int32] = []
    let recordPid: GDesktopAppLaunchCallback = { _, pid, userData in
        userData?.assumingMemoryBound(to: [Int32].self).pointee.append(pid)
    }
    // Every child spawned is reaped, also when a later spawn of the same launch failed.
    defer { for pid in pids { reapWhenExited(pid) } }
    _ = try withUnsafeMutablePointer(to: &pids) { pidsPointer throws(GLibFailure) in
        try withGLibError { error in
            gio.g_desktop_app_info_launch_uris_as_manager(
                entry.pointer, list, context.pointer, GSpawnFlags(G_SPAWN_SEARCH_PATH.rawValue | G_SPAWN_DO_NOT_REAP_CHILD.rawValue),
                waypost_reset_signals, nil, recordPid, pidsPointer, error)
        }
    }
    return pids
}

/// Reaps child `pid` once it has exited: through the process's pidfd watcher, or, where the kernel
/// gives no pidfd, on a thread of its own blocked in `waitpid`. Only for our own children, which
/// nothing else waits for: the pid cannot be reused before this reaps it. `waitpid`.
func reapWhenExited(_ pid: Int32) {
    if let handle = try? ProcessHandle(pid: pid) {
        ProcessExits.shared.watch(handle) { _ = waitpid(pid, nil, WNOHANG) }
    } else {
        startThread { while waitpid(pid, nil, 0) == -1 && errno == EINTR {} }
    }
}

/// GIO's own session-bus connection, opened once and never released (`Launcher.keepSessionBusOpen`).
/// GIO's bus connections raise SIGTERM when the bus closes them; this one does not: the process
/// leaves by its own connection's close, as it would without this one. `g_bus_get_sync` (transfer
/// full: the reference kept here; nil when the bus cannot be reached, and GIO then tries again at
/// each launch as it would have), `g_dbus_connection_set_exit_on_close`.
nonisolated(unsafe) private let keptSessionBus: OpaquePointer? = {
    guard let connection = gio.g_bus_get_sync(G_BUS_TYPE_SESSION, nil, nil) else { return nil }
    gio.g_dbus_connection_set_exit_on_close(connection, 0)
    return connection
}()

/// Opens the connection above, the first call only; later calls return at once.
func openKeptSessionBus() { _ = keptSessionBus }
