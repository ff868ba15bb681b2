import Desktop
import Dispatch
import Logging

// Starting an app that has no ready process, and waiting (with a timeout) until it has registered.
extension Dispatcher {
    /// Starts the app without the event on its command line (it arrives over D-Bus, once) and waits
    /// until one of its processes has registered and declared its scenes.
    func launchAndWait(_ app: ApplicationEntry, platformData: LaunchPlatformData) async throws(DispatchError) {
        if !launching.contains(app.id) {
            launching.insert(app.id)
            do {
                let pids = try await launch(app, uris: [], platformData: platformData)
                logger.info("launched \(app.id)\(pids.isEmpty ? " by D-Bus activation" : " as pid \(pids.map(String.init).joined(separator: ", "))")")
            } catch {
                launching.remove(app.id)
                throw .launchFailed(app: app.id, reason: error.description)
            }
        }
        let seconds = configuration.launchTimeout / .seconds(1)
        do {
            try await waitUntilReady(app.id)
        } catch is LaunchTimedOut {
            launching.remove(app.id)
            throw .timeout(app: app.id, waitedFor: "register and declare its scenes after being started", seconds: seconds)
        } catch {
            launching.remove(app.id)
            throw .launchFailed(app: app.id, reason: "waiting for it was cancelled")
        }
        launching.remove(app.id)
    }

    private struct LaunchTimedOut: Error {}

    private static let launches = DispatchQueue(label: "waypost.launches", attributes: .concurrent)

    func launch(
        _ entry: ApplicationEntry, uris: [String], platformData: LaunchPlatformData
    ) async throws(LaunchError) -> [Int32] {
        try await Self.launch(entry, uris: uris, platformData: platformData, with: launcher)
    }

    /// `launcher.launch` on a thread outside the cooperative pool: GIO spawns synchronously, and for a
    /// DBusActivatable entry first connects to the session bus synchronously. A queue of ours: it
    /// gets a thread even while blocking work holds the global pool's (one per core).
    static func launch(
        _ entry: ApplicationEntry, uris: [String], platformData: LaunchPlatformData, with launcher: any ApplicationLauncher
    ) async throws(LaunchError) -> [Int32] {
        let result: Result<[Int32], LaunchError> = await withCheckedContinuation { continuation in
            launches.async {
                continuation.resume(returning: Result { () throws(LaunchError) in
                    try launcher.launch(entry, uris: uris, platformData: platformData)
                })
            }
        }
        return try result.get()
    }

    /// Races the app's readiness against the launch timeout.
    private func waitUntilReady(_ appID: String) async throws {
        if registry.isReady(appID) { return }
        let timeout = configuration.launchTimeout
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await self.readiness(of: appID) }
            group.addTask {
                try await Task.sleep(for: timeout)
                throw LaunchTimedOut()
            }
            defer { group.cancelAll() }
            try await group.next()
        }
    }

    private func readiness(of appID: String) async throws {
        let id = nextWaiter
        nextWaiter += 1
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                if registry.isReady(appID) { continuation.resume() } else { readyWaiters[appID, default: [:]][id] = continuation }
            }
        } onCancel: {
            Task { await self.cancelWaiter(appID, id) }
        }
    }

    private func cancelWaiter(_ appID: String, _ id: Int) {
        readyWaiters[appID]?.removeValue(forKey: id)?.resume(throwing: CancellationError())
    }

    func wakeLaunchWaiters(of appID: String) {
        guard let waiters = readyWaiters.removeValue(forKey: appID) else { return }
        for waiter in waiters.values { waiter.resume() }
    }
}
