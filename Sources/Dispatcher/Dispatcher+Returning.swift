import DBus
import Logging

// Apps that were registered with the daemon before this one (a crash, its unit restarted), still
// running, registering again: the events carried meanwhile wait for them (RegistrationRecord.swift).
extension Dispatcher {
    /// The longest an event waits for apps registering again: they do so as soon as the name changes hands.
    static let returningAppsWait: Duration = .seconds(2)

    /// Keeps the connections of `recorded` (what the daemon before this one left, read by the caller:
    /// not a file read on the connection's thread) still on the bus: every event carried from now on
    /// waits until each has registered again and is ready (gone, or `returningAppsWait` passed).
    /// Before taking the name; one round trip (`ListNames`), and only when `recorded` names anyone.
    public func expectReturningApps(_ recorded: [(owner: String, appID: String)]) async {
        guard !recorded.isEmpty else { return }
        let names: [String]
        do {
            names = try await connection.call(
                destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                member: "ListNames", timeout: .seconds(5)
            ).decode([String].self)
        } catch {
            logger.warning("not waiting for apps registered before this daemon: the bus did not list its names: \(error)")
            return
        }
        let onBus = Set(names)
        for (owner, appID) in recorded where onBus.contains(owner) && registry.processes[owner] == nil { returning[owner] = appID }
        guard !returning.isEmpty else { return }
        logger.info("events wait for the apps registered before this daemon started: \(Set(returning.values).sorted().joined(separator: ", "))")
        Task {
            try? await Task.sleep(for: Self.returningAppsWait)
            self.stopAwaitingReturningApps()
        }
    }

    /// Returns once no app registered before this daemon is still expected to register again.
    func returningAppsSettled() async {
        guard !returning.isEmpty else { return }
        await withCheckedContinuation { returningWaiters.append($0) }
    }

    /// `owner` registered again and is ready, or left the bus.
    func returned(_ owner: String) {
        guard returning.removeValue(forKey: owner) != nil, returning.isEmpty else { return }
        stopAwaitingReturningApps()
    }

    private func stopAwaitingReturningApps() {
        if !returning.isEmpty {
            logger.notice("\(Set(returning.values).sorted().joined(separator: ", ")) did not register again within \(Self.returningAppsWait): events go on without them")
            returning = [:]
        }
        let waiters = returningWaiters
        returningWaiters = []
        for waiter in waiters { waiter.resume() }
    }

    /// Replaces the record with the processes registered now.
    func recordRegistrations() {
        guard let bus = connection.serverID else { return }
        configuration.registrationRecord?.write(busID: bus, registry.processes.map { (owner: $0.key, appID: $0.value.appID) })
    }
}
