/// Watches directories for files created, changed, moved or removed in them, so that a daemon can
/// re-read only what it derived from them (association files, the verification cache).
public enum DirectoryChanges {
    /// Calls `handler` with the directory's path whenever something in one of `directories` changes.
    ///
    /// GIO's file monitors (inotify) run on a thread of their own with a GLib main loop; a directory
    /// that does not exist yet is watched too, and reported once it appears. Returns once every
    /// monitor exists, so no change after the call is missed. Not for short-lived commands: inotify
    /// watches delay process exit.
    ///
    /// A directory GIO cannot monitor (when the user's processes hold as many inotify instances as
    /// the kernel allows, `fs.inotify.max_user_instances`) is compared with what it held every
    /// `pollingInterval` instead, and returned, with GIO's reason, for the caller to say so.
    /// - Throws: `GIOLoadError` when GIO cannot be opened.
    @discardableResult
    public static func watch(
        _ directories: [String], _ handler: @escaping @Sendable (String) -> Void
    ) async throws(GIOLoadError) -> [UnwatchedDirectory] {
        try GIO.load()
        let unwatched = await DirectoryMonitorLoop.watch(directories, handler)
        if !unwatched.isEmpty { DirectoryPoll.start(unwatched.map(\.path), every: pollingInterval, handler) }
        return unwatched
    }

    /// How often `watch` compares a directory GIO cannot monitor.
    public static let pollingInterval: Duration = .seconds(2)

    /// Calls `handler` with the directory's path whenever what one of `directories` holds differs
    /// from what it held `interval` before (entries' names, sizes, modification times, inodes):
    /// how `watch` follows a directory GIO cannot monitor. A file rewritten in place at the same
    /// size within one tick of the kernel's clock (a few milliseconds) of the state last compared
    /// looks unchanged until its next change; a file renamed into place, as atomic writes do, never.
    /// - Throws: `GIOLoadError` when GIO cannot be opened.
    public static func poll(
        _ directories: [String], every interval: Duration, _ handler: @escaping @Sendable (String) -> Void
    ) throws(GIOLoadError) {
        try GIO.load()
        DirectoryPoll.start(directories, every: interval, handler)
    }
}

/// A directory `DirectoryChanges.watch` could not monitor, and GIO's reason; it is polled instead.
public struct UnwatchedDirectory: Sendable, Equatable {
    public let path: String
    public let reason: String
}
