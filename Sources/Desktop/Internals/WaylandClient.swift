internal import CWayland
internal import Glibc

/// libwayland-client, reached through `dlopen` and one table of typed pointers (CWayland's
/// `WaypostWaylandFunctions`), as GIO is (`GIOLibrary.swift`): opened on the first use, never closed.
enum WaylandClient {
    static let library = "libwayland-client.so.0"

    nonisolated(unsafe) private static let loaded = open(library)

    /// - Throws: `ShellActionTokenError` naming the library and why, or what it lacks.
    static func functions() throws(ShellActionTokenError) -> UnsafePointer<WaypostWaylandFunctions> {
        try loaded.get()
    }

    private static func open(_ name: String) -> Result<UnsafePointer<WaypostWaylandFunctions>, ShellActionTokenError> {
        guard let handle = dlopen(name, RTLD_LAZY | RTLD_LOCAL) else {
            return .failure(.libraryMissing(library: name, reason: dlerror().map { String(cString: $0) } ?? "unknown reason"))
        }
        let functions = UnsafeMutablePointer<WaypostWaylandFunctions>.allocate(capacity: 1)
        if let missing = waypost_wayland_resolve(handle, functions) {
            functions.deallocate()
            dlclose(handle)
            return .failure(.functionMissing(library: name, function: String(cString: missing)))
        }
        return .success(UnsafePointer(functions))
    }

    /// `gtk_shell1.notify_launch(startupID)` on the compositor at `display`, each round trip
    /// bounded by `timeoutMilliseconds`. `waypost_wayland_notify_launch` (CWayland).
    static func notifyLaunch(display: String, startupID: String, timeoutMilliseconds: Int32) throws(ShellActionTokenError) {
        let functions = try functions()
        let result = waypost_wayland_notify_launch(functions, display, startupID, timeoutMilliseconds)
        switch result {
        case WAYPOST_NOTIFIED: return
        case WAYPOST_NO_DISPLAY: throw .noCompositor(display: display)
        case WAYPOST_NO_GTK_SHELL: throw .notOffered(display: display)
        default: throw .failed(display: display)
        }
    }
}
