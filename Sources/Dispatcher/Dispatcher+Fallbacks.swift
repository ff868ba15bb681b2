import DBus
import Desktop
import ExternalEvents
import WaypostContract

// Apps that do not take part: the scheme's or file type's previous handler gets the URI, by
// org.freedesktop.Application.Open when it runs as a DBusActivatable app, else by a launch.
extension Dispatcher {
    /// Hands the URI to the scheme's non-participating handler: `org.freedesktop.Application.Open`
    /// when it is a running DBusActivatable app, else a launch from its desktop entry with the URI.
    func fallback(_ uri: String, scheme: String, _ platformData: LaunchPlatformData) async throws(DispatchError) -> Outcome {
        let entry: ApplicationEntry?
        do { entry = try fallbackHandler(forScheme: scheme) } catch {
            throw .invalidURI(uri, reason: error.description)
        }
        guard let entry else {
            throw .noHandler(uri, reason: "no installed application declares x-scheme-handler/\(scheme)")
        }
        return try await handOverToNonParticipant(uri, entry, platformData)
    }

    /// The scheme's default from before `waypost install` (the user chose it), else GIO's choice;
    /// never a participating app or the dispatcher itself.
    func fallbackHandler(forScheme scheme: String) throws(CatalogError) -> ApplicationEntry? {
        if let previous = directory.previousDefault(forType: "x-scheme-handler/" + scheme, excluding: configuration.ownEntryID),
           !previous.participates {
            return previous
        }
        return try directory.fallbackHandler(forScheme: scheme, excluding: configuration.ownEntryID)
    }

    /// A `file://` URI: the app that opened its type before Waypost took the type over (recorded
    /// by `waypost install`) gets it when it participates, and its document-type rule picks the
    /// scene; otherwise that app, or GIO's choice, is launched with it as before.
    func openDocument(_ pending: PendingEvent, uri: String) async throws(DispatchError) -> Outcome {
        let app = try documentHandler(for: uri)
        if app.participates { return try await deliver(pending, to: app) }
        return try await handOverToNonParticipant(uri, app, pending.platformData)
    }

    /// The app that opened the file's type before Waypost took it over, else GIO's choice.
    func documentHandler(for uri: String) throws(DispatchError) -> ApplicationEntry {
        guard let type = contentTypes?.contentType(ofFileURL: uri) else {
            throw .noHandler(uri, reason: "the file's type cannot be told from its name")
        }
        let app = directory.previousDefault(forType: type, excluding: configuration.ownEntryID)
            ?? directory.fallbackHandler(forContentType: type, excluding: configuration.ownEntryID)
        guard let app else { throw .noHandler(uri, reason: "no installed application opens \(type) files") }
        return app
    }

    func handOverToNonParticipant(
        _ uri: String, _ entry: ApplicationEntry, _ platformData: LaunchPlatformData
    ) async throws(DispatchError) -> Outcome {
        // A running DBusActivatable app gets Open; not running (the bus knows no owner, and is told not
        // to start one), it is launched below, which passes the activation token GIO's way.
        if entry.isDBusActivatable, let name = try? BusName(entry.id) {
            do {
                _ = try await connection.call(
                    destination: name, path: Contract.FreedesktopApplication.objectPath(forApplicationID: entry.id),
                    interface: Contract.FreedesktopApplication.interface, member: Contract.FreedesktopApplication.open.name,
                    [uri], platformData.variants, timeout: configuration.deliveryTimeout, autoStart: false)
                return Outcome(action: .fallback, appID: entry.id, rule: "fallback", preface: "\(entry.id) does not take part in Waypost; it was sent org.freedesktop.Application.Open")
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
        do {
            _ = try await launch(entry, uris: [uri], platformData: platformData)
        } catch {
            throw .launchFailed(app: entry.id, reason: error.description)
        }
        return Outcome(action: .fallback, appID: entry.id, rule: "fallback", preface: "\(entry.id) does not take part in Waypost; it was started with the link")
    }
}
