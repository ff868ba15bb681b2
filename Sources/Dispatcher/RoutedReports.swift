import DBus
import Desktop
import ExternalEvents
import Logging
import Synchronization
import WaypostContract

/// Where each carried event went, told to the connections that asked (`MonitorRouted`: `Routed`,
/// sent to each alone) and to the log: every event, whoever carried it, is reported here once
/// (`Dispatcher.carry`).
final class RoutedReports: Sendable {
    private let callers: CallerConnections
    private let logger: Logger
    /// Connections that called `MonitorRouted`, and whether each asked for whole URIs.
    private let monitors = Mutex<[BusName: Contract.MonitorOptions]>([:])
    /// Which refusals the log is told one line each (RefusalLines.swift).
    private let refusalLines = Mutex(RefusalLines(now: .now))

    init(callers: CallerConnections, logger: Logger) {
        (self.callers, self.logger) = (callers, logger)
    }

    /// Adds (or updates) a monitor; true when it is new.
    func monitor(_ name: BusName, _ options: Contract.MonitorOptions) -> Bool {
        monitors.withLock { $0.updateValue(options, forKey: name) == nil }
    }

    func forget(_ name: BusName) { monitors.withLock { _ = $0.removeValue(forKey: name) } }

    /// Whether anyone monitors: an opener is awaited for a report only then.
    var watched: [BusName: Contract.MonitorOptions] { monitors.withLock { $0 } }

    /// Reports an event that reached `outcome` after `started`.
    func delivered(
        _ event: String, _ outcome: Outcome, opener: PendingOpener?, since started: ContinuousClock.Instant
    ) async {
        let monitors = watched
        if !monitors.isEmpty {
            var report = outcome.contractOutcome(reason: true)
            report.micros = UInt64((ContinuousClock.now - started) / .microseconds(1))
            report.opener = await opener?.value().label
            emit(event, to: monitors) { _ in report }
        }
        logger.info("\(DispatchError.abbreviated(Contract.redacted(event))) → \(outcome.appID) \(outcome.sceneID ?? outcome.declarationID ?? "") [\(outcome.rule.rawValue)]\(opener?.current.map { " from \($0.label)" } ?? "")")
    }

    /// Reports an event that was refused with `error`.
    func refused(_ event: String, _ error: DispatchError, opener: PendingOpener?) async {
        let monitors = watched
        let redacted = error.redacting(event)
        if !monitors.isEmpty {
            let openerLabel = await opener?.value().label
            emit(event, to: monitors) { full in
                Contract.RoutingOutcome(reason: (full ? error : redacted).description, error: error.failure, opener: openerLabel)
            }
        }
        refusal(error, "\(DispatchError.abbreviated(Contract.redacted(event))) not delivered: \(redacted)")
    }

    /// Logs a refusal at notice, but `Busy` and a budget's refusal at debug: they come by the
    /// thousand in a flood, and a line each would be the flood's second cost. Past
    /// `RefusalLines.perSecond` a second, refusals are counted and told in the next line logged.
    func refusal(_ error: DispatchError, _ line: @autoclosure () -> String) {
        switch error {
        case .busy, .callsInFlight, .budgetExceeded: logger.debug("\(line())")
        default:
            switch refusalLines.withLock({ $0.admit(now: .now) }) {
            case .count: break
            case .log(unlogged: 0): logger.notice("\(line())")
            case .log(let unlogged): logger.notice("\(line()) (and \(unlogged) refusals before it not logged)")
            }
        }
    }

    /// Sends `Routed` to each monitor alone (never a broadcast that any match rule receives), the
    /// event cut to scheme, host and path unless that monitor asked for whole URIs.
    private func emit(
        _ event: String, to monitors: [BusName: Contract.MonitorOptions], _ report: (_ full: Bool) -> Contract.RoutingOutcome
    ) {
        for (monitor, options) in monitors {
            try? callers.connection(for: monitor).emit(
                path: Contract.objectPath, interface: Contract.Dispatcher1.interface, member: Contract.Dispatcher1.routed.name,
                options.fullURIs ? event : Contract.redacted(event), report(options.fullURIs).variants, destination: monitor)
        }
    }
}
