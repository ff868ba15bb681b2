/// A change to an app's scenes that cannot be made; each case carries the offending id.
public enum RoutingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Two declarations share this id.
    case duplicateDeclaration(String)
    /// A scene with this id is already open.
    case duplicateScene(String)
    /// A scene names a declaration the app does not have.
    case unknownDeclaration(String, scene: String)
    /// No open scene has this id.
    case unknownScene(String)

    public var description: String {
        switch self {
        case .duplicateDeclaration(let id): "two declarations have the id \"\(id)\""
        case .duplicateScene(let id): "a scene with the id \"\(id)\" is already open"
        case .unknownDeclaration(let declaration, let scene):
            "scene \"\(scene)\" is an instance of \"\(declaration)\", which is not a declaration of the app"
        case .unknownScene(let id): "no open scene has the id \"\(id)\""
        }
    }
}
