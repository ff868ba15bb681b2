/// GIO could not be opened, so the desktop cannot be asked anything: no entries, no defaults,
/// no content types, no launches. Thrown by the initialisers of the types that need GIO.
public enum GIOLoadError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `dlopen` failed: the library is not installed (Debian's package libglib2.0-0) or not loadable.
    case libraryMissing(library: String, reason: String)
    /// The installed GIO is older than the one Waypost was built against: it lacks `function`.
    case functionMissing(library: String, function: String)

    public var description: String {
        switch self {
        case .libraryMissing(let library, let reason):
            "cannot load GIO (\(library)), which reading desktop entries needs: \(reason)"
        case .functionMissing(let library, let function):
            "the installed GIO (\(library)) has no \(function); Waypost needs a newer GLib"
        }
    }
}
