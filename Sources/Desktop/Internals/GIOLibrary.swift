internal import CGIO
internal import Glibc

/// GIO, GObject and GLib, opened with `dlopen` on first use instead of linked.
///
/// Linked, they cost every `waypost` process about 1.7 ms before `main` (a one-off comparison of two
/// small programs, with and without them: loading and relocating a dozen libraries, running GObject's
/// constructors), which `waypost open` never needs; it only talks D-Bus. The functions and their
/// types come from CGIO's `WaypostGIOFunctions`, declared from GIO's headers. Only this layer may call
/// GIO, and only through `gio.`: `make release` refuses a binary with a direct reference.
///
/// Policy: a missing GIO is the environment's fault, so it is thrown (`GIOLoadError`) by every public
/// entry point that needs GIO (the initialisers of `ApplicationCatalog`, `ContentTypes`, `Launcher`,
/// `XDGDirectories`, and `Files.run`), each calling `load()` first; a value of one of those types
/// proves that GIO is loaded. Reaching `functions` without that is a bug in this module and stops.
enum GIO {
    static let library = "libgio-2.0.so.0"

    /// Opened once, never closed.
    nonisolated(unsafe) private static let loaded = open(library)

    /// Opens GIO on first call; later calls return at once (or throw the same error again).
    /// - Throws: `GIOLoadError` naming the library and why, or the function it lacks.
    static func load() throws(GIOLoadError) { _ = try loaded.get() }

    /// `dlopen` and every function of the table; a separate step so that tests can open other libraries.
    static func open(_ name: String) -> Result<UnsafePointer<WaypostGIOFunctions>, GIOLoadError> {
        guard let handle = dlopen(name, RTLD_LAZY | RTLD_GLOBAL) else {
            let reason = dlerror().map { String(cString: $0) } ?? "unknown reason"
            return .failure(.libraryMissing(library: name, reason: reason))
        }
        let functions = UnsafeMutablePointer<WaypostGIOFunctions>.allocate(capacity: 1)
        if let missing = waypost_gio_resolve(handle, functions) {
            functions.deallocate()
            dlclose(handle)
            return .failure(.functionMissing(library: name, function: String(cString: missing)))
        }
        return .success(UnsafePointer(functions))
    }

    /// The function table, once `load()` has succeeded.
    static var functions: UnsafePointer<WaypostGIOFunctions> {
        switch loaded {
        case .success(let functions): return functions
        case .failure(let error):
            preconditionFailure("GIO called although it could not be loaded (\(error)): a Desktop entry point skipped GIO.load()")
        }
    }
}

/// GIO's functions, called as `gio.g_free(pointer)`.
var gio: WaypostGIOFunctions { GIO.functions.pointee }
