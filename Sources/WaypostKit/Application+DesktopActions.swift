import DBus
import WaypostContract

// `org.freedesktop.Application` on the app's own bus name, for a `DBusActivatable=true` entry:
// GLib's `g_desktop_app_info_launch_action` (GNOME Shell, docks) calls `ActivateAction` there, and
// the bus starts the app for it when none runs. The app hands the action to the dispatcher, which
// reads the action from the app's installed entry and routes it by the rules, as a shortcut: to
// the scene that takes it, in whichever process of the app (docs/shortcuts.md).
extension Application {
    var desktopApplicationInterface: Interface {
        typealias Members = Contract.FreedesktopApplication
        return Interface(
            Members.interface,
            methods: [
                // Started, registered: nothing more to show than the scenes the app opens itself.
                Members.activate.exportedAnsweringAtOnce { call in try call.reply() },
                Members.open.exported { [weak self] call in
                    guard let self else { throw BusError(.unknownObject, "the application stopped") }
                    let (uris, _) = try call.arguments([String].self, [String: Variant].self)
                    try? await synchronize()
                    for uri in uris {
                        do { _ = try await openLaunchURL(uri) } catch { throw BusError(.failed, "\(error)") }
                    }
                    return try call.reply()
                },
                Members.activateAction.exported { [weak self] call in
                    guard let self else { throw BusError(.unknownObject, "the application stopped") }
                    let (action, _, platform) = try call.arguments(String.self, [Variant].self, [String: Variant].self)
                    // Started for this call, the app is registered first, so the shortcut may come back here.
                    try? await synchronize()
                    try await performShortcut(action, platform)
                    return try call.reply()
                },
            ])
    }

    /// Asks the dispatcher to route the entry's action; its refusal reaches the launcher as it came.
    private func performShortcut(_ action: String, _ platform: [String: Variant]) async throws(BusError) {
        do throws(WaypostError) {
            try await call(Contract.Dispatcher1.performShortcut, id, action, platform)
        } catch {
            switch error {
            case .dispatcherRefused(call: _, errorName: let name, message: let message):
                throw BusError(ErrorName(rawValue: name) ?? .failed, message)
            default: throw BusError(.failed, error.description)
            }
        }
    }

    /// Serves `org.freedesktop.Application` and takes the app's id as a bus name, when free: another
    /// process of the app may hold it, and then answers for the app.
    func serveDesktopActivation(on connection: Connection) async {
        let path = Contract.FreedesktopApplication.objectPath(forApplicationID: id)
        guard (try? connection.export(path, interfaces: [desktopApplicationInterface])) != nil,
              let name = try? BusName(id)
        else { return }
        _ = try? await connection.requestName(name, flags: [.doNotQueue])
    }
}
