/// The activation token and X11 startup id an opener handed over, passed on to what is launched.
public struct LaunchPlatformData: Sendable, Hashable {
    /// The Wayland `xdg-activation` token (`activation-token` in D-Bus `platform_data`).
    public var activationToken: String?
    /// The X11 startup-notification id (`desktop-startup-id` in D-Bus `platform_data`).
    public var desktopStartupID: String?

    public init(activationToken: String? = nil, desktopStartupID: String? = nil) {
        self.activationToken = activationToken
        self.desktopStartupID = desktopStartupID
    }
}

/// A launch that failed, with the entry, the URIs and GLib's (or our) explanation.
public struct LaunchError: Error, Sendable, Hashable, CustomStringConvertible {
    public let applicationID: String
    public let uris: [String]
    public let message: String

    public init(applicationID: String, uris: [String], message: String) {
        (self.applicationID, self.uris, self.message) = (applicationID, uris, message)
    }

    public var description: String {
        "launching '\(applicationID)'" + (uris.isEmpty ? "" : " with \(uris)") + " failed: \(message)"
    }
}

/// Starts applications from their desktop entries, through GIO.
public struct Launcher: Sendable {
    /// - Throws: `GIOLoadError` when GIO cannot be opened.
    public init() throws(GIOLoadError) { try GIO.load() }

    /// Launches `entry`, honouring `DBusActivatable` (GIO calls `org.freedesktop.Application`
    /// `Activate`/`Open` itself) and the `Exec` field codes (one process per URI for `%u`).
    ///
    /// Policy: a participating app is launched with no URIs (its event arrives over D-Bus); a fallback
    /// handler gets them. The tokens go into the launched environment as `XDG_ACTIVATION_TOKEN` and
    /// `DESKTOP_STARTUP_ID` (absent ones are removed, so our own never leak) and, for `StartupNotify`
    /// entries, into GIO's D-Bus `platform_data` (GLib 2.74 sends only `desktop-startup-id`, holding the
    /// activation token when there is one). Children are reaped, inherit no descriptor past 2, and
    /// start with no signal blocked and default dispositions, whatever the calling thread blocks. A
    /// program that fails after exec (a bad `#!`) is not reported: GIO runs it via gio-launch-desktop.
    /// - Returns: the pids GIO spawned, in order; empty after D-Bus activation.
    /// - Throws: `LaunchError` with GLib's message (missing program, entry gone, NUL in a URI).
    public func launch(
        _ entry: ApplicationEntry, uris: [String] = [], platformData: LaunchPlatformData = .init()
    ) throws(LaunchError) -> [Int32] {
        CatalogTurns.asking()
        defer { CatalogTurns.answered() }
        let failure = Self.failure(entry, uris)
        try Self.check(uris, platformData, failure)
        // Reload by id: the value may be older than the file, and GIO launches what is installed now.
        guard let reference = AppInfoReference.load(desktopFileID: entry.desktopFileID) else {
            throw failure("no desktop entry '\(entry.desktopFileID)' is loadable any more")
        }
        do {
            return try launchEntry(reference, uris: uris, context: Self.context(platformData))
        } catch {
            throw failure(error.message)
        }
    }

    /// Launches `entry` with `added` arguments on its command line (before its field code, see
    /// `ExecLine.inserting`): a browser's profile or private window.
    ///
    /// Policy: always a spawn from `Exec`, never D-Bus activation (`Open` over the bus can carry no
    /// arguments): GIO gets the entry's file with only `Exec` changed and `DBusActivatable` removed, so
    /// `StartupNotify`, `Path` and `Terminal` hold, and the tokens travel as `launch` passes them.
    /// - Returns: the pids GIO spawned, in order.
    /// - Throws: `LaunchError` with GLib's message, or when the entry is gone or has no `Exec`.
    public func launch(
        _ entry: ApplicationEntry, adding added: [String], uris: [String], platformData: LaunchPlatformData = .init()
    ) throws(LaunchError) -> [Int32] {
        CatalogTurns.asking()
        defer { CatalogTurns.answered() }
        let failure = Self.failure(entry, uris)
        try Self.check(uris, platformData, failure)
        if let bad = added.first(where: { $0.contains("\0") }) { throw failure("argument \(bad.debugDescription) holds a NUL byte") }
        // The file installed now, as `launch` reloads by id; the entry's own file when the id no
        // longer resolves (a test's entry outside the data directories).
        let file = AppInfoReference.load(desktopFileID: entry.desktopFileID)?.filename ?? entry.filePath
        let reference: AppInfoReference
        do {
            reference = try AppInfoReference.load(file: file, changingExec: { exec throws(GLibFailure) in
                ExecLine.inserting(added, into: try execArguments(exec))
            })
        } catch {
            throw failure("\(file): \(error.message)")
        }
        do {
            return try launchEntry(reference, uris: uris, context: Self.context(platformData))
        } catch {
            throw failure(error.message)
        }
    }

    /// Opens GIO's connection to the session bus now and keeps it for the life of the process.
    /// Every launch goes through it (GIO announces each spawn there, and activates `DBusActivatable`
    /// entries over it), connecting first, synchronously, when no connection is open, and dropping
    /// it after: without this, a launch waits for a connect and a `Hello`, and each makes a new
    /// connection the bus and the dispatcher see come and go. Only for a process whose session bus
    /// stays the same for its life (the daemon): a test process that starts one bus after another
    /// would launch over a closed connection. Blocks for the connect: call it off any thread that
    /// answers calls.
    public func keepSessionBusOpen() { openKeptSessionBus() }

    private static func failure(_ entry: ApplicationEntry, _ uris: [String]) -> (String) -> LaunchError {
        { message in LaunchError(applicationID: entry.id, uris: uris, message: message) }
    }

    /// Refuses empty or NUL-holding URIs and tokens: GLib would cut them at the NUL.
    private static func check(
        _ uris: [String], _ platformData: LaunchPlatformData, _ failure: (String) -> LaunchError
    ) throws(LaunchError) {
        if let bad = uris.first(where: { $0.isEmpty || $0.contains("\0") }) {
            throw failure("URI \(bad.debugDescription) is empty or holds a NUL byte")
        }
        for token in [platformData.activationToken, platformData.desktopStartupID] {
            if let token, token.isEmpty || token.contains("\0") {
                throw failure("token \(token.debugDescription) is empty or holds a NUL byte")
            }
        }
    }

    private static func context(_ platformData: LaunchPlatformData) -> LaunchContextReference {
        LaunchContextReference(
            environment: [
                ("XDG_ACTIVATION_TOKEN", platformData.activationToken),
                ("DESKTOP_STARTUP_ID", platformData.desktopStartupID),
            ],
            startupID: platformData.activationToken ?? platformData.desktopStartupID)
    }
}
