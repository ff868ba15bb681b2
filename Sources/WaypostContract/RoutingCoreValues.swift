public import ExternalEvents

// The routing core's values as the contract carries them, and back: declarations and modifiers
// (DeclareScenes, SetExternalEvents, Status) and activities. Here, so that the daemon and the client
// library do not each write their own encoder.

extension Contract.Declaration {
    public init(_ declaration: SceneDeclaration) {
        switch declaration.kind {
        case .windowGroup(let matching):
            self.init(id: declaration.id, kind: .windowGroup, matching: matching?.conditions)
        case .documentGroup(let types, let matching):
            self.init(id: declaration.id, kind: .documentGroup, matching: matching?.conditions, contentTypes: types)
        }
    }
}

extension SceneDeclaration {
    public init(_ declaration: Contract.Declaration) {
        let matching = declaration.matching.map { ConditionSet($0) }
        switch declaration.kind {
        case .windowGroup: self = .windowGroup(declaration.id, matching: matching)
        case .documentGroup: self = .documentGroup(declaration.id, contentTypes: declaration.contentTypes, matching: matching)
        }
    }
}

extension Contract.Modifier {
    public init(_ preference: EventPreference) {
        self.init(preferring: preference.preferring.conditions, allowing: preference.allowing.conditions)
    }
}

extension EventPreference {
    public init(_ modifier: Contract.Modifier) {
        self.init(preferring: ConditionSet(modifier.preferring), allowing: ConditionSet(modifier.allowing))
    }
}

extension UserActivity {
    /// An activity of `type` with the details that travelled beside it; `userInfo` as text.
    public init(type: String, _ details: Contract.ActivityDetails) {
        self.init(
            type: type, targetContentIdentifier: details.targetContentIdentifier, webpageURL: details.webpageURL,
            title: details.title, userInfo: details.userInfoText)
    }
}
