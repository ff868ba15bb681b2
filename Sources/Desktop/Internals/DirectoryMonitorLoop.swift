internal import CGIO
import Synchronization

/// GIO file monitors for directories, each set on a thread of its own running a GLib main loop for
/// them alone (GIO emits `changed` in the context a monitor was created in). Threads and monitors
/// live as long as the process: a daemon watches the same directories all its life.
enum DirectoryMonitorLoop {
    /// One watch: its directories, what to call, and who waits for the monitors to exist.
    private final class Watch: Sendable {
        let directories: [String]
        let handler: @Sendable (String) -> Void
        /// Resumed with the directories GIO could not monitor, and why.
        let ready: CheckedContinuation<[UnwatchedDirectory], Never>
        init(
            _ directories: [String], _ handler: @escaping @Sendable (String) -> Void,
            ready: CheckedContinuation<[UnwatchedDirectory], Never>
        ) {
            (self.directories, self.handler, self.ready) = (directories, handler, ready)
        }
    }

    /// - Returns: the directories GIO could not monitor, and why.
    static func watch(_ directories: [String], _ handler: @escaping @Sendable (String) -> Void) async -> [UnwatchedDirectory] {
        await withCheckedContinuation { ready in
            let watch = Watch(directories, handler, ready: ready)
            let context = Unmanaged.passRetained(watch).toOpaque()
            var thread = pthread_t()
            let created = pthread_create(&thread, nil, { context in
                DirectoryMonitorLoop.run(Unmanaged<Watch>.fromOpaque(context!).takeRetainedValue())
                return nil
            }, context)
            precondition(created == 0, "cannot start the directory monitor thread: error \(created)")
            pthread_detach(thread)
        }
    }

    /// `g_main_context_new`, `g_main_context_push_thread_default`, `g_vfs_get_local`, `g_vfs_get_file_for_path`,
    /// `g_file_monitor_directory` (transfer full, never released: watched for the process's life), `g_signal_connect_data`,
    /// `g_main_loop_run`. The Watch is kept alive by this thread, which never returns.
    private static func run(_ watch: Watch) {
        let context = gio.g_main_context_new()
        gio.g_main_context_push_thread_default(context)
        let changed: @convention(c) (OpaquePointer?, OpaquePointer?, OpaquePointer?, GFileMonitorEvent, gpointer?) -> Void = {
            _, _, _, _, data in
            guard let data else { return }
            let entry = Unmanaged<MonitoredDirectory>.fromOpaque(data).takeUnretainedValue()
            entry.handler(entry.path)
        }
        var unwatched: [UnwatchedDirectory] = []
        // The local VFS, not the default one: the watched directories are local, and the default
        // loads every GIO module that implements a VFS (gvfs's, on a desktop) first, even when
        // GIO_USE_VFS=local picks the local one (about 1 ms of a daemon's start-up).
        let local = gio.g_vfs_get_local()
        for path in watch.directories {
            let file = gio.g_vfs_get_file_for_path(local, path)
            defer { gio.g_object_unref(gpointer(file)) }
            // G_FILE_MONITOR_WATCH_MOVES: a file renamed into place (an atomic write) is one event.
            do throws(GLibFailure) {
                let created = try withGLibError { error in
                    gio.g_file_monitor_directory(file, G_FILE_MONITOR_WATCH_MOVES, nil, error)
                }
                guard let monitor = created else {
                    unwatched.append(UnwatchedDirectory(path: path, reason: "GIO gave no monitor"))
                    continue
                }
                let entry = Unmanaged.passRetained(MonitoredDirectory(path: path, handler: watch.handler)).toOpaque()
                _ = gio.g_signal_connect_data(
                    gpointer(monitor), "changed", unsafeBitCast(changed, to: GCallback.self), entry, nil, GConnectFlags(rawValue: 0))
            } catch {
                unwatched.append(UnwatchedDirectory(path: path, reason: error.message))
            }
        }
        watch.ready.resume(returning: unwatched)
        let loop = gio.g_main_loop_new(context, 0)
        gio.g_main_loop_run(loop)
    }

    /// What a monitor's callback needs: retained for the process's life.
    private final class MonitoredDirectory: Sendable {
        let path: String
        let handler: @Sendable (String) -> Void
        init(path: String, handler: @escaping @Sendable (String) -> Void) { (self.path, self.handler) = (path, handler) }
    }
}
