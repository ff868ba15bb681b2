import ExternalEvents
import WaypostContract

// The app's declarations and modifiers as the contract carries them (WaypostContract owns the keys).

extension SceneDeclaration {
    /// As `DeclareScenes` sends it.
    var contractDeclaration: Contract.Declaration {
        switch kind {
        case .windowGroup(let matching):
            Contract.Declaration(id: id, kind: .windowGroup, matching: matching?.conditions)
        case .documentGroup(let types, let matching):
            Contract.Declaration(id: id, kind: .documentGroup, matching: matching?.conditions, contentTypes: types)
        }
    }
}

extension EventPreference {
    /// As `SetExternalEvents` sends it.
    var contractModifier: Contract.Modifier {
        Contract.Modifier(preferring: preferring.conditions, allowing: allowing.conditions)
    }
}
