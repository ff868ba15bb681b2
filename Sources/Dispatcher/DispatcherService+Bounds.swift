import DBus
import Logging
import Synchronization
import WaypostContract

// The bound on each connection's calls in flight, which calls take turns (SenderTurns.swift), and
// which act as the registered app.
extension DispatcherService {
    /// Calls that deliver an event: they await apps, and run side by side; the others take turns.
    static let delivering: Set<MemberName> = [
        Contract.Dispatcher1.open.name, Contract.Dispatcher1.continueActivity.name,
        Contract.Dispatcher1.continueSavedActivity.name, Contract.FreedesktopApplication.open.name,
        Contract.SearchProvider2.activateResult.name, Contract.SearchProvider2.launchSearch.name, Contract.KRunner1.run.name,
    ]

    /// Calls that act as the registered app: each first checks that the caller's process still
    /// runs the program registration found (Dispatcher+Identity.swift). `Open` and the other
    /// openers' calls do not: any connection may make them.
    static let actingAsTheApp: Set<MemberName> = [
        Contract.Dispatcher1.declareScenes.name, Contract.Dispatcher1.ready.name, Contract.Dispatcher1.addScene.name,
        Contract.Dispatcher1.removeScene.name, Contract.Dispatcher1.activateScene.name,
        Contract.Dispatcher1.setExternalEvents.name, Contract.Dispatcher1.setCurrentActivity.name,
        Contract.Dispatcher1.clearCurrentActivity.name, Contract.Dispatcher1.deleteSavedActivities.name,
        Contract.Dispatcher1.deleteAllSavedActivities.name,
    ]

    func enter(_ caller: BusName) throws(DispatchError) {
        let limit = Budgets.callsInFlightPerConnection
        let admitted = callsInFlight.withLock { counts in
            let count = counts[caller, default: 0]
            if count >= limit { return false }
            counts[caller] = count + 1
            return true
        }
        if !admitted { throw .busy("\(caller) has \(limit) calls in flight", limit: limit) }
    }

    func leave(_ caller: BusName) {
        answered.add(1, ordering: .relaxed)
        callsInFlight.withLock { counts in
            let count = counts[caller, default: 1] - 1
            counts[caller] = count == 0 ? nil : count
        }
    }

    /// Logs a refusal at notice, but `Busy` at debug: it comes by the thousand in a flood, and a
    /// line each would be the flood's second cost.
    func logRefusal(_ error: DispatchError, _ line: @autoclosure () -> String) {
        if case .busy = error { logger.debug("\(line())") } else { logger.notice("\(line())") }
    }
}
