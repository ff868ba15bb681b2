import DBus
import Desktop
import ExternalEvents
import Planning
import WaypostContract

// Apps that do not take part (a scheme's or file type's previous handler, the browser) get the URI by
// org.freedesktop.Application.Open when it runs as a DBusActivatable app, else by a launch.
extension Dispatcher {
    /// Hands the URI to an entry that does not take part: `org.freedesktop.Application.Open` when it
    /// is a running DBusActivatable app, else a launch from its desktop entry with the URI.
    /// - Returns: how it got the URI, for the reason.
    func handOverToNonParticipant(
        _ uri: String, _ entry: InstalledApp, _ platformData: LaunchPlatformData
    ) async throws(DispatchError) -> String {
        // A running DBusActivatable app gets Open; not running (the bus knows no owner, and is told not
        // to start one), it is launched below, which passes the activation token GIO's way.
        if entry.isDBusActivatable, let name = try? BusName(entry.id) {
            do {
                _ = try await connection.call(
                    destination: name, path: Contract.FreedesktopApplication.objectPath(forApplicationID: entry.id),
                    interface: Contract.FreedesktopApplication.interface, member: Contract.FreedesktopApplication.open.name,
                    [uri], platformData.properties, timeout: configuration.deliveryTimeout, autoStart: false)
                return "it was sent org.freedesktop.Application.Open"
            } catch let error as BusError where error.name == .serviceUnknown || error.name == .nameHasNoOwner {
                // Not running: launched below.
            } catch let error as BusError where error.name == .noReply {
                // It may have the link: not launched again (docs/delivery.md).
                throw .timeout(
                    app: entry.id, waitedFor: "answer org.freedesktop.Application.Open (\(error.message)); the link was sent nowhere else",
                    seconds: configuration.deliveryTimeout / .seconds(1))
            } catch {
                throw .deliveryFailed(uri, attempts: ["\(entry.id) refused org.freedesktop.Application.Open: \(error)"])
            }
        }
        return try await Self.start(entry.id, with: uri, platformData, directory: directory, launcher: launcher)
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
}
