import TestSupport
import Testing

/// The daemon reads every entry's program (for openers' walks) after it takes its name, beside the
/// link that started it: nothing that link needs may wait for that reading.
@Suite("dispatcher: links while every entry's program is read", .serialized)
struct ProgramsReadingTests {
    @Test("a link from a new connection is delivered while the installed programs are still being read")
    func linkWhileProgramsAreRead() async throws {
        let desktop = try await PeerDesktop()
        defer { desktop.close() }
        let app = try await desktop.installApp(SampleApp(
            "org.example.Shop", schemes: ["shop"],
            declarations: [("main", ["kind": "window-group"])], scenes: [("w", "main", [([], ["*"])])]))
        try await desktop.start(app)
        let release = desktop.directory.holdProgramsReading()
        defer { release() }
        let opener = try await desktop.connect()
        let outcome = try await withDeadline("the link is delivered with the reading held", context: { desktop.busLog }) {
            try await desktop.open("shop:item", with: opener)
        }
        #expect(outcome["scene-id"] == "w")
        #expect(desktop.received(app.id).map { $0["uri"] as? String } == ["shop:item"])
        // Once read, the next connection's link is decided as before.
        release()
        let later = try await desktop.connect()
        #expect(try await desktop.open("shop:next", with: later)["scene-id"] == "w")
    }
}
