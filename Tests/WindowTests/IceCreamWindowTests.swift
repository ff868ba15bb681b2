import Foundation
import TestSupport
import Testing

/// The GTK Ice Cream sample: the size chosen in a window decides the activities it takes back, as
/// a search result or Handoff brings them, with the window to the front.
@Suite(.serialized) struct IceCreamWindowTests {
    static let selection = "io.waypost.example.icecream-selection"

    /// `waypost continue` of the size, as GNOME Shell's or KRunner's search result continues it.
    func continueSize(_ id: Int, token: String, on desktop: WindowDesktop) async throws {
        let run = try await desktop.run(
            WindowDesktop.waypost, ["continue", Self.selection, "--target", "icecream/size/\(id)", "--user-info", #"{"sizeId": \#(id)}"#],
            extra: ["DESKTOP_STARTUP_ID": token])
        #expect(run.status == 0, "\(run.output)\(run.errors)\n\(desktop.busLog)")
    }

    @Test(.enabled(if: ContactsWindowTests.runsHere))
    func aSizeComesBackToTheWindowShowingItAndAnotherOpensANewWindow() async throws {
        let desktop = try await WindowDesktop()
        defer { desktop.close() }
        try await desktop.install(["io.waypost.example.IceCream"])

        // Not running: launched, and a window showing Large, presented with the token.
        try await continueSize(3, token: "waypost-test-large", on: desktop)
        let large = try await desktop.activeWindow(titled: "Large Ice Cream")
        #expect(try await desktop.startupID(of: large) == "waypost-test-large")

        // Large's window prefers Large only: Small gets a window of its own.
        try await continueSize(1, token: "waypost-test-small", on: desktop)
        let small = try await desktop.activeWindow(titled: "Small Ice Cream")
        #expect(small != large)
        #expect(try await desktop.startupID(of: small) == "waypost-test-small")

        // Large again: its window comes back to the front, with the new token.
        try await continueSize(3, token: "waypost-test-large-again", on: desktop)
        #expect(try await desktop.activeWindow(titled: "Large Ice Cream") == large)
        #expect(try await desktop.startupID(of: large) == "waypost-test-large-again")
        #expect(try await desktop.scene(preferring: "icecream/size/3") != nil)

        // Small to the front; then GNOME Shell's search finds the size Large's window published, and
        // picking it brings that window back, with the startup id made from the shell's timestamp.
        try await continueSize(1, token: "waypost-test-small-again", on: desktop)
        #expect(try await desktop.activeWindow(titled: "Small Ice Cream") == small)
        let provider = ["call", "--session", "--dest", "io.waypost.Dispatcher", "--object-path", "/io/waypost/Dispatcher/SearchProvider"]
        var found = ""
        try await waitUntil("the search for \"large\" finds Large", context: desktop.busLog) {
            let reply = try await desktop.run(
                "/usr/bin/gdbus", provider + ["--method", "org.gnome.Shell.SearchProvider2.GetInitialResultSet", "['large']"])
            found = reply.output.split(separator: "'").dropFirst().first.map(String.init) ?? ""
            return !found.isEmpty
        }
        let pick = try await desktop.run(
            "/usr/bin/gdbus", provider + ["--method", "org.gnome.Shell.SearchProvider2.ActivateResult", found, "['large']", "1234"])
        #expect(pick.status == 0, "\(pick.errors)\n\(desktop.busLog)")
        try await waitUntil("Large's window carries the search's startup id", context: desktop.busLog) {
            try await desktop.startupID(of: large) == "waypost-search_TIME1234"
        }
        #expect(try await desktop.activeWindow(titled: "Large Ice Cream") == large)
    }
}
