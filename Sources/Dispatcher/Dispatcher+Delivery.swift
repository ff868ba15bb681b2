import DBus
import Desktop
import ExternalEvents
import WaypostContract

// Handing an event to a participating app's scenes, and the calls of io.waypost.Application1 that do it.
extension Dispatcher {
    /// Starts the app if no process of it is ready, then routes the event over its live scenes,
    /// falling through past every destination that fails until one acknowledges.
    func deliver(_ pending: PendingEvent, to app: ApplicationEntry) async throws(DispatchError) -> Outcome {
        var launched = false
        if !registry.isReady(app.id) {
            try await launchAndWait(app, platformData: pending.platformData)
            launched = true
        }
        var failures: [String] = []
        var failedScenes: Set<String> = []
        var failedProcesses: Set<String> = []
        while true {
            guard var router = registry.router(of: app.id) else {
                failures.append("every process of \(app.id) went away")
                throw .deliveryFailed(pending.label, attempts: failures)
            }
            for scene in failedScenes { try? router.removeScene(scene) }
            let decision = router.route(pending.event)
            switch decision.action {
            case .deliver(let scene):
                guard let process = registry.owner(ofScene: scene, in: app.id) else {
                    failedScenes.insert(scene)
                    continue
                }
                let outcome = Outcome(decision, app: app.id, launched: launched)
                do {
                    try await handOver(pending, toScene: scene, of: process) { pending.prepare?(outcome) }
                    return outcome
                } catch {
                    failures.append("scene \"\(scene)\" (\(process.owner)): \(error)")
                    failedScenes.insert(scene)
                    forgetIfGone(process.owner.rawValue, error)
                }
            case .create(let declaration):
                let candidates = registry.processes(of: app.id).filter {
                    !failedProcesses.contains($0.owner.rawValue) && $0.declarations?.contains { $0.id == declaration } == true
                }
                for process in candidates {
                    do {
                        let scene = try await createScene(declaration, for: pending, in: process)
                        var result = Outcome(decision, app: app.id, launched: launched)
                        result.sceneID = scene
                        return result
                    } catch {
                        failures.append("creating \"\(declaration)\" in \(process.owner): \(error)")
                        failedProcesses.insert(process.owner.rawValue)
                        forgetIfGone(process.owner.rawValue, error)
                    }
                }
                if failures.isEmpty { failures.append("no process of \(app.id) declares \"\(declaration)\"") }
                throw .deliveryFailed(pending.label, attempts: failures)
            case .unhandled:
                if failures.isEmpty { throw .noHandler(pending.label, reason: "\(app.id) has no scene for it: \(decision.reason)") }
                throw .deliveryFailed(pending.label, attempts: failures)
            }
        }
    }

    /// An app whose connection is gone will not answer again: drop it now rather than when the
    /// bus's NameOwnerChanged arrives, so the next attempt does not try it.
    private func forgetIfGone(_ owner: String, _ error: any Error) {
        guard let error = error as? BusError else { return }
        let gone: Set<ErrorName> = [.serviceUnknown, .nameHasNoOwner, .disconnected]
        if gone.contains(error.name) { connectionVanished(owner) }
    }

    private func handOver(
        _ pending: PendingEvent, toScene scene: String, of process: AppProcess, whileAwaiting: () -> Void
    ) async throws {
        let platform = pending.platformData.variants
        switch pending.event {
        case .url(let uri):
            _ = try await connection.call(
                destination: process.owner, path: process.objectPath, interface: Contract.Application1.interface,
                member: Contract.Application1.openURL.name, scene, uri, platform, timeout: configuration.deliveryTimeout,
                whileAwaiting: whileAwaiting)
        case .activity(let activity):
            _ = try await connection.call(
                destination: process.owner, path: process.objectPath, interface: Contract.Application1.interface,
                member: Contract.Application1.continueUserActivity.name, scene, activity.type, pending.activity, platform,
                timeout: configuration.deliveryTimeout, whileAwaiting: whileAwaiting)
        }
    }

    private func createScene(_ declaration: String, for pending: PendingEvent, in process: AppProcess) async throws -> String {
        let event: Contract.SceneEvent = switch pending.event {
        case .url(let uri): .url(uri)
        case .activity(let activity): .activity(type: activity.type, activity: pending.activity)
        }
        let reply = try await connection.call(
            destination: process.owner, path: process.objectPath,
            interface: Contract.Application1.interface, member: Contract.Application1.createScene.name,
            declaration, event.variants, pending.platformData.variants, timeout: configuration.deliveryTimeout)
        return try reply.decode(String.self)
    }
}
