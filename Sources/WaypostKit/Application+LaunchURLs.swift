import DBus
import ExternalEvents
import Glibc
import Synchronization
import WaypostContract

// A URL the app was started with: its entry's `Exec=… %u` runs it with the link when the desktop
// hands links to the app itself (after `waypost uninstall`, or when Waypost is not installed).
extension Application {
    /// Hands a URL the app was started with to one of its scenes, so that no link is lost when the
    /// desktop launched the app with it instead of going through Waypost.
    ///
    /// Registered with a dispatcher, the app gives it the URL as any opener would (its rules then
    /// see every process of the app). Without one, the URL is routed here by the same rules
    /// (`SceneRouter`, as the dispatcher's) over this process's scenes: an open scene that prefers or
    /// allows it, else a new scene of the first declaration that matches (`onCreateScene`). Document
    /// groups take no URL here: telling a file's type is the dispatcher's.
    /// - Returns: the id of the scene that received it.
    /// - Throws: `launchURLNotDelivered` with the URL and why: no scene takes it, or the scene's
    ///   handler refused it.
    public func openLaunchURL(_ url: String) async throws(WaypostError) -> String {
        // The launcher's token, which the URL's window comes to the front with (docs/windows.md).
        let launchedWith = Contract.PlatformData(
            activationToken: getenv("XDG_ACTIVATION_TOKEN").map { String(cString: $0) },
            desktopStartupID: getenv("DESKTOP_STARTUP_ID").map { String(cString: $0) })
        let context = EventContext(activationToken: launchedWith.activationToken, desktopStartupID: launchedWith.desktopStartupID)
        if let (connection, owner) = state.withLock({ state in state.connection.flatMap { c in state.dispatcher.map { (c, $0) } } }) {
            do {
                let reply = try await connection.call(
                    destination: owner, path: Contract.objectPath, interface: Contract.Dispatcher1.interface,
                    member: Contract.Dispatcher1.open.name, url,
                    launchedWith.variants,
                    timeout: .seconds(30))
                let outcome = try Contract.RoutingOutcome(try reply.decode([String: Variant].self))
                return outcome.sceneID ?? outcome.declarationID ?? outcome.appID ?? ""
            } catch {
                throw .launchURLNotDelivered(url, reason: "the dispatcher could not open it: \(error)")
            }
        }
        let decision: Decision
        do {
            let scenes = state.withLock { $0.scenes.sorted { $0.value.recency > $1.value.recency } }
            let router = try SceneRouter(
                declarations: declarations,
                openScenes: scenes.map { OpenScene(id: $0.key, declaration: $0.value.declaration, modifiers: $0.value.modifiers) },
                supportsMultipleScenes: !isSingleScene)
            decision = router.route(.url(url))
        } catch {
            throw .launchURLNotDelivered(url, reason: "\(error)")
        }
        do {
            switch decision.action {
            case .deliver(let scene):
                try await handling(.url(url), inScene: scene, context: context)()
                return scene
            case .create(let declaration):
                guard let factory = state.withLock({ $0.createScene }) else {
                    throw BusError(.failed, "\(id) opens no new scenes (it set no onCreateScene handler)")
                }
                let scene = try await factory(SceneRequest(
                    declaration: declarations.first { $0.id == declaration }!, event: .url(url), context: context))
                try await handling(.url(url), inScene: scene.id, context: context)()
                return scene.id
            case .unhandled:
                throw BusError(.failed, decision.reason)
            }
        } catch let error as BusError {
            throw .launchURLNotDelivered(url, reason: error.message)
        } catch {
            throw .launchURLNotDelivered(url, reason: "\(error)")
        }
    }
}
