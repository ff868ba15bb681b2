/// A scene in the app's body, in declaration order: what routing may create a new instance of.
public struct SceneDeclaration: Sendable, Hashable, Identifiable {
    /// What kind of scene it is, with what decides whether it takes an event.
    public enum Kind: Sendable, Hashable {
        /// A window group; `matching` is its `handlesExternalEvents(matching:)` set, nil without the modifier.
        case windowGroup(matching: ConditionSet?)
        /// A document group, for files of these content types (MIME types) or their subtypes.
        /// It ignores `matching`, which is kept only so that a declaration reads as written.
        case documentGroup(contentTypes: [String], matching: ConditionSet?)
    }

    public let id: String
    public let kind: Kind

    public init(id: String, kind: Kind) {
        self.id = id
        self.kind = kind
    }

    /// A window group, with the `matching` modifier when `matching` is not nil.
    public static func windowGroup(_ id: String, matching: ConditionSet? = nil) -> SceneDeclaration {
        SceneDeclaration(id: id, kind: .windowGroup(matching: matching))
    }

    /// A document group for the given content types.
    public static func documentGroup(
        _ id: String, contentTypes: [String], matching: ConditionSet? = nil
    ) -> SceneDeclaration {
        SceneDeclaration(id: id, kind: .documentGroup(contentTypes: contentTypes, matching: matching))
    }
}

/// One `handlesExternalEvents(preferring:allowing:)` modifier inside an open scene.
public struct EventPreference: Sendable, Hashable {
    /// Events the scene prefers: a preferring match anywhere beats an allowing match anywhere.
    public var preferring: ConditionSet
    /// Events the scene can handle when no open scene prefers them.
    public var allowing: ConditionSet

    public init(preferring: ConditionSet = .none, allowing: ConditionSet = .none) {
        self.preferring = preferring
        self.allowing = allowing
    }

    /// The union of several modifiers' sets: what a scene carrying all of them uses.
    public static func union(_ modifiers: [EventPreference]) -> EventPreference {
        guard var united = modifiers.first else { return EventPreference() }
        for modifier in modifiers.dropFirst() {
            united.preferring = united.preferring.union(modifier.preferring)
            united.allowing = united.allowing.union(modifier.allowing)
        }
        return united
    }
}

/// An open scene: an instance of a declaration, with the modifiers its views carry now.
public struct OpenScene: Sendable, Hashable, Identifiable {
    public let id: String
    /// The id of the declaration this scene is an instance of.
    public let declaration: String
    public var modifiers: [EventPreference]

    public init(id: String, declaration: String, modifiers: [EventPreference] = []) {
        self.id = id
        self.declaration = declaration
        self.modifiers = modifiers
    }
}

/// Tells content types of files, for document groups; the Desktop module answers from shared-mime-info.
public protocol ContentTypeResolving: Sendable {
    /// The content type (MIME type) of the file a `file://` URL names, or nil when the URL is not a
    /// local file URL or nothing can be told.
    func contentType(ofFileURL url: String) -> String?
    /// Whether `type` is `supertype` or one of its subtypes (`text/markdown` is a `text/plain`).
    func contentType(_ type: String, conformsTo supertype: String) -> Bool
}
