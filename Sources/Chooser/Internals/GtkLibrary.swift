internal import CGtkRuntime
internal import Glibc

/// GTK 4 (with the GDK, GIO, GObject and GLib it brings), reached through `dlopen` and one table of
/// typed pointers (CGtkRuntime's `WaypostGtkFunctions`), never linked: `waypost open` and the daemon
/// must start without GTK, and a machine without it still routes links (the daemon then asks no one).
///
/// Policy: a missing GTK is the environment's fault, thrown by `load()` as `ChooserError`; reaching
/// `functions` without a successful `load()` is a bug in this module and stops the program.
enum GtkLibrary {
    static let name = "libgtk-4.so.1"

    /// Opened once, never closed.
    nonisolated(unsafe) private static let loaded = open(name)

    /// Opens GTK on the first call; later calls return at once (or throw the same error again).
    static func load() throws(ChooserError) { _ = try loaded.get() }

    /// Opens GTK and initialises it on a display: X11's `DISPLAY` or Wayland's `WAYLAND_DISPLAY`.
    /// - Throws: `ChooserError` when GTK cannot be loaded or no display opened. `gtk_init_check`.
    static func start() throws(ChooserError) {
        try load()
        // The program's name in what GDK makes: WM_CLASS, and X11 startup ids ("(null)-…" without it).
        gtk.g_set_prgname("waypost")
        guard gtk.gtk_init_check() != 0 else {
            throw .noDisplay(display: environmentValue("DISPLAY"), waylandDisplay: environmentValue("WAYLAND_DISPLAY"))
        }
    }

    private static func open(_ name: String) -> Result<UnsafePointer<WaypostGtkFunctions>, ChooserError> {
        guard let handle = dlopen(name, RTLD_LAZY | RTLD_GLOBAL) else {
            let reason = dlerror().map { String(cString: $0) } ?? "unknown reason"
            return .failure(.libraryMissing(library: name, reason: reason))
        }
        let functions = UnsafeMutablePointer<WaypostGtkFunctions>.allocate(capacity: 1)
        if let missing = waypost_gtk_resolve(handle, functions) {
            functions.deallocate()
            dlclose(handle)
            return .failure(.functionMissing(library: name, function: String(cString: missing)))
        }
        return .success(UnsafePointer(functions))
    }

    static var functions: UnsafePointer<WaypostGtkFunctions> {
        switch loaded {
        case .success(let functions): return functions
        case .failure(let error): preconditionFailure("GTK called although it could not be loaded (\(error))")
        }
    }
}

/// GTK's functions, called as `gtk.gtk_window_present(window)`.
var gtk: WaypostGtkFunctions { GtkLibrary.functions.pointee }

/// The value of an environment variable, for error messages; nil when unset or empty.
func environmentValue(_ name: String) -> String? {
    getenv(name).map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
}
