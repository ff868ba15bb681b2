import DBus
import Desktop
import ExternalEvents
import WaypostContract

// The daemon's types as the contract's dictionaries carry them (WaypostContract owns the keys and
// their types; this file only maps them onto the routing core's types and back).

extension LaunchPlatformData {
    /// As `platform_data` travels.
    var variants: [String: Variant] {
        Contract.PlatformData(activationToken: activationToken, desktopStartupID: desktopStartupID).variants
    }

    init(_ variants: [String: Variant]) {
        let data = Contract.PlatformData(variants)
        self.init(activationToken: data.activationToken, desktopStartupID: data.desktopStartupID)
    }
}

extension SceneDeclaration {
    /// A declaration as `DeclareScenes` sent it.
    init(_ declaration: Contract.Declaration) {
        let matching = declaration.matching.map { ConditionSet($0) }
        switch declaration.kind {
        case .windowGroup: self = .windowGroup(declaration.id, matching: matching)
        case .documentGroup: self = .documentGroup(declaration.id, contentTypes: declaration.contentTypes, matching: matching)
        }
    }

    /// As `Status` reports it.
    var contractDeclaration: Contract.Declaration {
        switch kind {
        case .windowGroup(let matching):
            Contract.Declaration(id: id, kind: .windowGroup, matching: matching?.conditions)
        case .documentGroup(let types, let matching):
            Contract.Declaration(id: id, kind: .documentGroup, matching: matching?.conditions, contentTypes: types)
        }
    }
}

extension UserActivity {
    /// An activity of `type` as `ContinueActivity` sent its details.
    init(type: String, _ details: Contract.ActivityDetails) {
        self.init(
            type: type, targetContentIdentifier: details.targetContentIdentifier, webpageURL: details.webpageURL,
            title: details.title, userInfo: details.userInfoText)
    }
}

extension EventPreference {
    init(_ modifier: Contract.Modifier) {
        self.init(preferring: ConditionSet(modifier.preferring), allowing: ConditionSet(modifier.allowing))
    }
}

extension Outcome {
    /// As `Open` and `ContinueActivity` answer, or with the reason as `Explain` and `Routed` report it.
    func contractOutcome(reason: Bool) -> Contract.RoutingOutcome {
        Contract.RoutingOutcome(
            action: action, appID: appID, sceneID: sceneID, declarationID: declarationID, rule: rule,
            reason: reason ? self.reason : nil)
    }
}

extension AppProcess {
    var status: Contract.ProcessStatus {
        Contract.ProcessStatus(
            appID: appID, owner: owner.rawValue, pid: pid, objectPath: objectPath, singleScene: singleScene,
            declarations: (declarations ?? []).map(\.contractDeclaration))
    }
}

extension SceneRecord {
    var status: Contract.SceneStatus {
        Contract.SceneStatus(
            appID: appID, sceneID: scene.id, declarationID: scene.declaration, owner: owner,
            modifiers: scene.modifiers.map { Contract.Modifier(preferring: $0.preferring.conditions, allowing: $0.allowing.conditions) })
    }
}

extension DispatchError {
    /// A dictionary argument that breaks the contract, as its sender hears of it.
    init(_ error: Contract.KeyError, in argument: String) {
        let offending = switch error {
        case .wrongType(let key, _, _): key
        case .missing(let keys): keys.joined(separator: ", ")
        case .unexpectedValue(_, let value, _): value
        }
        self = .invalidArgument(offending, reason: "\(argument): \(error)")
    }
}
