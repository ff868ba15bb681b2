/// Where routing sends an event, by which rule, and why.
public struct Decision: Sendable, Hashable, CustomStringConvertible {
    /// What happens to the event.
    public enum Action: Sendable, Hashable {
        /// Deliver it to this open scene.
        case deliver(scene: String)
        /// Create a new instance of this declaration and deliver it there.
        case create(declaration: String)
        /// No scene takes it.
        case unhandled
    }

    /// The rule that decided, by the names the documentation and `waypost explain` use.
    public enum Rule: String, Sendable, Hashable, CaseIterable {
        case singleScene = "single-scene"
        case preferring, allowing, matching
        case documentType = "document-type"
        case `default`
        case none
    }

    /// The facts behind a decision, rendered into `reason` only when someone reads it.
    enum Because: Sendable, Hashable {
        case onlyScene(scene: String)
        case preferred(scene: String, condition: String)
        case allowed(scene: String, condition: String)
        case matched(declaration: String, condition: String)
        case documentType(declaration: String, fileType: String, supported: String)
        case firstWithoutMatching(declaration: String)
        case nothing
    }

    public let action: Action
    public let rule: Rule
    let because: Because
    /// How many scenes were open, for the reason.
    let openScenes: Int
    /// Whether the app supports only a single scene, for the reason.
    let singleSceneApp: Bool
    /// The file's content type when a document group was considered, for the reason.
    let fileType: String?

    /// The condition that matched (`*` included), for the preferring, allowing and matching rules.
    public var condition: String? {
        switch because {
        case .preferred(_, let c), .allowed(_, let c), .matched(_, let c): c
        default: nil
        }
    }

    /// A sentence or two saying why, for people.
    public var reason: String {
        let noneOpen = singleSceneApp ? "the app supports a single scene and none is open" : nil
        let noOpenScene = noneOpen
            ?? (openScenes == 0
                ? "no scene is open"
                : "none of the \(openScenes) open scene\(openScenes == 1 ? "" : "s") prefers or allows it")
        switch because {
        case .onlyScene(let scene):
            return "the app supports a single scene, so \"\(scene)\" gets every event; modifiers are ignored"
        case .preferred(let scene, let condition):
            return "open scene \"\(scene)\" prefers it: \(Self.quoted(condition)) is in its preferring set"
                + " (a preferring match beats any allowing match)"
        case .allowed(let scene, let condition):
            return "no open scene prefers it; open scene \"\(scene)\" allows it: "
                + "\(Self.quoted(condition)) is in its allowing set"
        case .matched(let declaration, let condition):
            return "\(noOpenScene); declaration \"\(declaration)\" is the first whose matching set "
                + "matches it (\(Self.quoted(condition)))"
        case .documentType(let declaration, let fileType, let supported):
            return "\(noOpenScene); document group \"\(declaration)\" opens files of type \(supported), "
                + "and the file is \(fileType)"
        case .firstWithoutMatching(let declaration):
            return "\(noOpenScene); no declaration's matching set or document types match it, so the "
                + "first window group without a matching modifier, \"\(declaration)\", gets a new scene"
        case .nothing:
            let file = fileType.map { " (the file is \($0))" } ?? ""
            return "\(noOpenScene); no declaration matches it\(file), and every window group has a "
                + "matching modifier, so no scene takes it"
        }
    }

    public var description: String {
        switch action {
        case .deliver(let scene): "deliver to \(scene) [\(rule.rawValue)]: \(reason)"
        case .create(let declaration): "create \(declaration) [\(rule.rawValue)]: \(reason)"
        case .unhandled: "unhandled [\(rule.rawValue)]: \(reason)"
        }
    }

    private static func quoted(_ condition: String) -> String {
        condition == "*" ? "\"*\" (anything)" : "\"\(condition)\""
    }
}
