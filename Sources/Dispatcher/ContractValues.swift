import DBus
import Desktop
import ExternalEvents
import WaypostContract

// The daemon's own types as the contract's dictionaries carry them (WaypostContract owns the keys,
// their types, and the routing core's declarations, modifiers and activities).

extension LaunchPlatformData {
    /// As `platform_data` travels.
    var variants: [String: Variant] { properties.dictionary }

    /// As `platform_data` is sent to an app with each event.
    var properties: PropertyList {
        Contract.PlatformData(activationToken: activationToken, desktopStartupID: desktopStartupID).properties
    }

    init(_ variants: [String: Variant]) {
        let data = Contract.PlatformData(variants)
        self.init(activationToken: data.activationToken, desktopStartupID: data.desktopStartupID)
    }
}

extension Outcome {
    /// As `Open` and `ContinueActivity` answer, or with the reason as `Explain` and `Routed` report it.
    func contractOutcome(reason: Bool) -> Contract.RoutingOutcome {
        Contract.RoutingOutcome(
            action: action, appID: appID, sceneID: sceneID, declarationID: declarationID,
            rule: rule, reason: reason ? self.reason : nil, token: reason ? carriedToken : nil)
    }

    /// As `Explain` answers: the first step's keys, with the reason, and every step in `steps`.
    static func explained(_ steps: [Outcome]) -> Contract.RoutingOutcome {
        var outcome = steps[0].contractOutcome(reason: true)
        outcome.steps = steps.map { $0.contractOutcome(reason: true) }
        return outcome
    }
}

extension AppProcess {
    var status: Contract.ProcessStatus {
        Contract.ProcessStatus(
            appID: appID, owner: owner.rawValue, pid: pid, objectPath: objectPath, singleScene: singleScene,
            declarations: (declarations ?? []).map(Contract.Declaration.init))
    }
}

extension SceneRecord {
    var status: Contract.SceneStatus {
        Contract.SceneStatus(
            appID: appID, sceneID: scene.id, declarationID: scene.declaration, owner: owner,
            modifiers: scene.modifiers.map(Contract.Modifier.init))
    }
}

extension DispatchError {
    /// A dictionary argument that breaks the contract, as its sender hears of it.
    init(_ error: Contract.KeyError, in argument: String) {
        if case .tooLarge(let key, _, let bytes, let limit) = error {
            self = .budgetExceeded(what: "\"\(key)\" of the \(argument)", app: "the caller", amount: bytes, limit: limit)
            return
        }
        let offending = switch error {
        case .wrongType(let key, _, _): key
        case .missing(let keys): keys.joined(separator: ", ")
        case .unexpectedValue(_, let value, _): value
        case .tooLarge(_, let value, _, _): value
        }
        self = .invalidArgument(offending, reason: "\(argument): \(error)")
    }
}
