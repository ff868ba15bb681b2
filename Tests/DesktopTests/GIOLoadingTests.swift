@testable import Desktop
import Testing

/// What the desktop layer says when GIO cannot be opened: an error the caller reports, never an exit.
@Suite("Opening GIO")
struct GIOLoadingTests {
    @Test("a library that is not installed is an error naming it, with the loader's reason")
    func libraryMissing() {
        let name = "libwaypost-absent-gio.so.0"
        guard case .failure(let error) = GIO.open(name), case .libraryMissing(let library, let reason) = error else {
            Issue.record("opening \(name) did not fail as a missing library")
            return
        }
        #expect(library == name)
        #expect(reason.contains("No such file"))
        #expect(error.description.hasPrefix("cannot load GIO (\(name)), which reading desktop entries needs: "))
    }

    @Test("a library without GIO's functions is an error naming the first function it lacks")
    func functionMissing() {
        guard case .failure(let error) = GIO.open("libc.so.6"), case .functionMissing(let library, let function) = error else {
            Issue.record("libc.so.6 was accepted as GIO")
            return
        }
        #expect(library == "libc.so.6")
        #expect(function.hasPrefix("g_"))
        #expect(error.description == "the installed GIO (libc.so.6) has no \(function); Waypost needs a newer GLib")
    }
}
