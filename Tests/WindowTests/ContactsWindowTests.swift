import Foundation
import TestSupport
import Testing

/// The GTK Contacts sample on a real X server with a real window manager: each way a link reaches
/// the desktop ends with the right window of the app active, presented with the opener's token.
///
/// Xvfb, openbox, xdotool, xprop and wmctrl come from `make deps`; WAYPOST_REQUIRE_WINDOWS=1 (set by
/// `make test`) makes these tests fail rather than skip where they are missing.
@Suite(.serialized) struct ContactsWindowTests {
    static let runsHere = WindowDesktop.runsHere || ProcessInfo.processInfo.environment["WAYPOST_REQUIRE_WINDOWS"] == "1"
    static let contacts = "io.waypost.example.Contacts"

    @Test(.enabled(if: runsHere))
    func eachOpenerEndsWithTheContactsWindowActiveAndPresentedWithItsToken() async throws {
        let desktop = try await WindowDesktop()
        defer { desktop.close() }
        try await desktop.install([Self.contacts])

        // gio open: Contacts is not running, so it is launched and opens a window for Ada. GLib's gio
        // tool opens without a launch context: no token travels, and openbox focuses a new window anyway.
        let gio = try await desktop.run("/usr/bin/gio", ["open", "contacts://show?id=0F3A-ADA"])
        #expect(gio.status == 0, "\(gio.errors)\n\(desktop.busLog)")
        let ada = try await desktop.activeWindow(titled: "Ada Lovelace – Contacts")

        // xdg-open (no known desktop: it runs the default entry's Exec, `waypost open %U`) with the
        // startup id a launcher sets: Ada's window prefers Ada only, so Bob gets a new window.
        let xdg = try await desktop.run("/usr/bin/xdg-open", ["contacts://show?id=51C2-BOB"], extra: ["DESKTOP_STARTUP_ID": "waypost-test-bob"])
        #expect(xdg.status == 0, "\(xdg.errors)\n\(desktop.busLog)")
        let bob = try await desktop.activeWindow(titled: "Bob Kahn – Contacts")
        #expect(bob != ada, "a new window for Bob")
        #expect(try await desktop.startupID(of: bob) == "waypost-test-bob")

        // org.freedesktop.Application.Open with platform data, as GIO sends it when the opener gives a
        // launch context (a file manager, a shell): Ada's own window comes back to the front.
        let open = try await desktop.run("/usr/bin/gdbus", [
            "call", "--session", "--dest", "io.waypost.Dispatcher", "--object-path", "/io/waypost/Dispatcher",
            "--method", "org.freedesktop.Application.Open", "['contacts://show?id=0F3A-ADA']",
            "{'desktop-startup-id': <'waypost-test-ada'>}",
        ])
        #expect(open.status == 0, "\(open.errors)\n\(desktop.busLog)")
        #expect(try await desktop.activeWindow(titled: "Ada Lovelace – Contacts") == ada, "Ada's window, not a new one")
        #expect(try await desktop.startupID(of: ada) == "waypost-test-ada")

        // A continued activity (Handoff of Dan): no window prefers him and none allows, so a new one.
        let handoff = try await desktop.run(
            WindowDesktop.waypost, ["continue", "io.waypost.example.contact.show", "--target", "D41D-DAN"],
            extra: ["DESKTOP_STARTUP_ID": "waypost-test-dan"])
        #expect(handoff.status == 0, "\(handoff.errors)\n\(desktop.busLog)")
        let dan = try await desktop.activeWindow(titled: "Dan Bricklin – Contacts")
        #expect(try await desktop.startupID(of: dan) == "waypost-test-dan")
        #expect(Set(try await desktop.windowTitles()) == ["Ada Lovelace – Contacts", "Bob Kahn – Contacts", "Dan Bricklin – Contacts"])
    }

    @Test(.enabled(if: runsHere))
    func closingAWindowClosesItsSceneAndTheLastEndsTheApp() async throws {
        let desktop = try await WindowDesktop()
        defer { desktop.close() }
        try await desktop.install([Self.contacts])
        let adaLink = "contacts://show?id=0F3A-ADA", bobLink = "contacts://show?id=51C2-BOB"
        try await desktop.run("/usr/bin/gio", ["open", adaLink])
        let ada = try await desktop.activeWindow(titled: "Ada Lovelace – Contacts")
        try await desktop.run("/usr/bin/gio", ["open", bobLink])
        let bob = try await desktop.activeWindow(titled: "Bob Kahn – Contacts")
        let status = try await desktop.status()
        let adaScene = try #require(try await desktop.scene(preferring: "0F3A-ADA"), "\(status)")
        let bobScene = try #require(try await desktop.scene(preferring: "51C2-BOB"), "\(status)")
        #expect(adaScene != bobScene)

        // Bob's window closed as its close button does: the dispatcher forgets its scene, not Ada's.
        try await desktop.closeWindow(bob)
        try await waitUntil("the dispatcher forgets \(bobScene)", context: desktop.busLog) {
            try await !desktop.status().contains(bobScene)
        }
        #expect(try await desktop.status().contains(adaScene))
        try await waitUntil("only Ada's window is left", context: desktop.busLog) {
            try await desktop.windowTitles() == ["Ada Lovelace – Contacts"]
        }

        // Bob again: no window of his is open, so a new one (Ada's window takes only Ada).
        try await desktop.run("/usr/bin/gio", ["open", bobLink])
        let bobAgain = try await desktop.activeWindow(titled: "Bob Kahn – Contacts")
        #expect(bobAgain != bob)

        // The last window closed ends the app: the dispatcher lists no Contacts process.
        try await desktop.closeWindow(ada)
        try await desktop.closeWindow(bobAgain)
        try await waitUntil("Contacts has left", context: desktop.busLog) {
            try await !desktop.status().contains(Self.contacts)
        }
    }
}
