extension ApplicationCatalog {
    /// Calls `handler` whenever installed applications or the user's defaults change, so that a
    /// long-running process can drop what it derived from the catalog.
    ///
    /// GIO notices changes through its own file monitors and tells us a few milliseconds after the
    /// files changed; the handler runs on a dedicated thread. Returns once GIO's monitor exists, so
    /// that every change after that is reported. Not for short-lived commands: the monitors hold
    /// inotify watches, which delay process exit.
    public func onChange(_ handler: @escaping @Sendable () -> Void) async {
        await AppInfoMonitorLoop.add(handler)
    }
}
