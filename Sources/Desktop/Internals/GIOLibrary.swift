internal import CGIO
internal import Glibc

// Why the table stays rather than GIO linked and called directly: `make bench-open` with the same
// tree built with GIO linked as `WAYPOST_BEFORE` (three runs, both binaries in each), a `waypost
// open` to a running app took 1.32–1.40× `gio open`'s time against 0.99–1.05×, past the ≤ 1.3× target,
// and 2.55–2.57× its peak memory against 1.84–1.86× (15.7 against 11.4 MiB), past ≤ 2×.

/// GIO, GObject and GLib, reached through `dlopen` and one table of typed pointers, never called directly.
///
/// The table (CGIO's `WaypostGIOFunctions`) keeps every GIO call in one place that the compiler
/// checks against GIO's headers, and turns a GIO too old for us into an error the caller reports.
/// It keeps GIO out of the release binary: `make release` compiles CGIO against a pkg-config file
/// of its own that lists no libraries, so GIO, GObject and GLib are not among its needed ones and
/// a `waypost open`, which calls no GIO, never loads them (the daemon does, at its start). Debug
/// builds link them through SwiftPM's pkg-config, and there `dlopen` finds them loaded. Only this
/// layer may call GIO, and only through `gio.`: `make release` refuses a direct reference.
///
/// Policy: a missing GIO is the environment's fault, so it is thrown (`GIOLoadError`) by every
/// public entry point that needs GIO (the initialisers of `ApplicationCatalog`, `ContentTypes`,
/// `Launcher` and `XDGDirectories`; `Files.run`, `Files.findProgram`), each calling `load()` first;
/// a value of one of those types proves GIO loaded. Reaching `functions` without that is a bug in
/// this module, and stops the program.
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
