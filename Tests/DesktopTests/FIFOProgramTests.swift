import Desktop
import Foundation
import Testing
import TestSupport

/// A FIFO where an entry's program should be: reading what the entry runs skips it, never waits.
@Suite("FIFOs named by desktop entries")
struct FIFOProgramTests {
    let desktop = DesktopTestEnvironment.shared  // first: sets XDG_* before any GLib call

    @Test func anEntryWhoseProgramIsAFIFOIsReadWithoutWaiting() async throws {
        let catalog = try ApplicationCatalog()
        let id = "org.waypost.test." + desktop.uniqueName("FifoProgram")
        let program = desktop.bin + "/" + desktop.uniqueName("fifo-program")
        try #require(mkfifo(program, 0o700) == 0)
        try await desktop.install(id: id, ["Type=Application", "Name=Fifo", "Exec=\(program) %u"])
        try await waitUntil("the catalog has \(id)") { (try? catalog.entry(id: id)) != nil }
        // Its `#!` line would be read here: a plain open of the FIFO waits for a writer.
        let signatures = try InstalledPrograms.signatures(of: try catalog.entry(id: id))
        #expect(signatures == [ProgramSignature(.program(program))], "\(signatures)")
    }
}
