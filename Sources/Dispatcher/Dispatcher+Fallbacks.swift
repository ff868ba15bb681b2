import Browsers
import DBus
import Dispatch
import FoundationEssentials
import Desktop
import ExternalEvents
import Planning
import WaypostContract

// Apps that do not take part (a scheme's or file type's previous handler, the browser) get the URI by
// org.freedesktop.Application.Open when it runs as a DBusActivatable app, else by a launch.
extension Dispatcher {
    /// Hands the URI to an entry that does not take part: `org.freedesktop.Application.Open` when it
    /// is a running DBusActivatable app, else a launch from its desktop entry with the URI.
    /// A browser's profile or private window is always a launch with the browser's own arguments:
    /// `Open` over the bus cannot say which window.
    /// - Returns: how it got the URI, for the reason.
    func handOverToNonParticipant(
        _ uri: String, _ entry: InstalledApp, window: BrowserWindow = .usual, _ platformData: LaunchPlatformData
    ) async throws(DispatchError) -> String {
        if window != .usual {
            return try await Self.start(
                entry.id, with: uri, window: window, platformData, directory: directory, launcher: launcher,
                homes: configuration.browserHomes ?? .ofThisProcess)
        }
        // A running DBusActivatable app gets Open; not running (the bus knows no owner, and is told not
        // to start one), it is launched below, which passes the activation token GIO's way.
        if entry.isDBusActivatable, let name = try? BusName(entry.id) {
            do {
                _ = try await connection.call(
                    destination: name, path: Contract.FreedesktopApplication.objectPath(forApplicationID: entry.id),
                    interface: Contract.FreedesktopApplication.interface, member: Contract.FreedesktopApplication.open.name,
                    [uri], platformData.properties, timeout: configuration.deliveryTimeout, autoStart: false)
                return "it was sent org.freedesktop.Application.Open"
            } catch {
                switch Self.afterRefusedOpen(error, uri: uri, app: entry.id, waited: configuration.deliveryTimeout) {
                case .launch: break  // Not running: launched below.
                case .fail(let failure): throw failure
                }
            }
        }
        return try await Self.start(entry.id, with: uri, platformData, directory: directory, launcher: launcher)
    }

    /// What follows when a running DBusActivatable entry's `org.freedesktop.Application.Open` failed.
    enum AfterRefusedOpen: Sendable, Hashable {
        /// It does not run (the bus knows no owner): launch it with the link.
        case launch
        /// Answer this, and send the link nowhere else.
        case fail(DispatchError)
    }

    /// Sorts `Open`'s failure: `ServiceUnknown` or `NameHasNoOwner` mean not running, so a launch;
    /// `NoReply` means it may have the link, so a timeout and never a launch (at most once,
    /// docs/delivery.md); any other error is a refusal naming the app.
    static func afterRefusedOpen(_ error: any Error, uri: String, app: String, waited: Duration) -> AfterRefusedOpen {
        if let error = error as? BusError {
            if error.name == .serviceUnknown || error.name == .nameHasNoOwner { return .launch }
            if error.name == .noReply {
                return .fail(.timeout(
                    app: app, waitedFor: "answer org.freedesktop.Application.Open (\(error.message)); the link was sent nowhere else",
                    seconds: waited / .seconds(1)))
            }
        }
        return .fail(.deliveryFailed(uri, attempts: ["\(app) refused org.freedesktop.Application.Open: \(error)"]))
    }

    /// Starts the installed entry `id` with the URI on its command line.
    /// - Returns: how it got the URI, for the reason.
    /// - Throws: `launchFailed` naming the app: its entry is gone, or the launch failed (GIO's reason).
    static func start(
        _ id: String, with uri: String, _ platformData: LaunchPlatformData, directory: any ApplicationDirectory,
        launcher: any ApplicationLauncher
    ) async throws(DispatchError) -> String {
        let installed: ApplicationEntry
        do { installed = try directory.entry(id: id) } catch { throw .launchFailed(app: id, reason: error.description) }
        do {
            _ = try await launch(installed, uris: [uri], platformData: platformData, with: launcher)
        } catch {
            throw .launchFailed(app: id, reason: error.description)
        }
        return "it was started with the link"
    }

    /// Starts the browser entry `id` with the URI in `window`: its profiles read from its own files,
    /// its arguments for that window added to its `Exec` (`BrowserProfiles.arguments(for:)`). A
    /// browser already running takes the link into that window itself (docs/browser-profiles.md).
    /// - Returns: how it got the URI, for the reason.
    /// - Throws: `launchFailed` naming the app: not a browser known here, a profile it does not list
    ///   (with the ones it does), its files unreadable, or the launch failed.
    static func start(
        _ id: String, with uri: String, window: BrowserWindow, _ platformData: LaunchPlatformData,
        directory: any ApplicationDirectory, launcher: any ApplicationLauncher, homes: BrowserHomes
    ) async throws(DispatchError) -> String {
        let installed: ApplicationEntry
        do { installed = try directory.entry(id: id) } catch { throw .launchFailed(app: id, reason: error.description) }
        return try await start(installed, with: uri, window: window, platformData, launcher: launcher, homes: homes)
    }

    /// `start(_:with:window:…)` for an entry already read.
    static func start(
        _ installed: ApplicationEntry, with uri: String, window: BrowserWindow, _ platformData: LaunchPlatformData,
        launcher: any ApplicationLauncher, homes: BrowserHomes
    ) async throws(DispatchError) -> String {
        let id = installed.id
        // Files and GIO's spawn are synchronous: off the cooperative pool, as `launch` does.
        let result: Result<Void, DispatchError> = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: Result { () throws(DispatchError) in
                    let arguments: [String]
                    do throws(BrowserProfileError) {
                        arguments = try BrowserProfiles.read(of: installed, homes: homes).arguments(for: window)
                    } catch {
                        throw .launchFailed(app: id, reason: error.description)
                    }
                    do throws(LaunchError) {
                        _ = try launcher.launch(installed, adding: arguments, uris: [uri], platformData: platformData)
                    } catch {
                        throw .launchFailed(app: id, reason: error.description)
                    }
                })
            }
        }
        try result.get()
        return switch window {
        case .usual: "it was started with the link"
        case .profile(let name): "it was started with the link for its profile \(name)"
        case .privateWindow: "it was started with the link for a private window"
        }
    }
}

extension BrowserHomes {
    /// `$HOME` and `$XDG_CONFIG_HOME` (else `~/.config`) of this process.
    static var ofThisProcess: BrowserHomes {
        let environment = ProcessInfo.processInfo.environment
        let home = environment["HOME"] ?? ""
        // The XDG spec: a relative value is invalid and ignored.
        let config = environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
        return BrowserHomes(home: home, configHome: config ?? home + "/.config")
    }
}
