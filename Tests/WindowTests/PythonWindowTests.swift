import Foundation
import TestSupport
import Testing

/// `Tests/Apps/contacts_gtk.py`, Contacts in Python with GTK 4 windows, written from `dbus/*.xml`
/// alone: the same openers end with the same windows active, presented with the token.
@Suite(.serialized) struct PythonWindowTests {
    static let app = "io.waypost.example.ContactsPython"
    static let program = WindowDesktop.packageRoot.appendingPathComponent("Tests/Apps/contacts_gtk.py").path
    static let entry = """
        [Desktop Entry]
        Type=Application
        Name=Contacts (Python)
        Exec=/usr/bin/python3 \(program)
        StartupNotify=true
        MimeType=x-scheme-handler/contacts;
        X-Waypost=true
        X-Waypost-Activity-Types=io.waypost.example.contact.show;

        """
    // GTK 4's typelib (gir1.2-gtk-4.0) comes with libgtk-4-dev, python3-gi with `make deps`.
    @Test(.enabled(if: ContactsWindowTests.runsHere))
    func thePythonAppsWindowsComeToTheFrontAndCloseWithTheirScenes() async throws {
        let desktop = try await WindowDesktop()
        defer { desktop.close() }
        try await desktop.install([], entries: [Self.app: Self.entry])

        // Launched for Ada by the dispatcher; then Bob in a new window, with xdg-open's startup id.
        let gio = try await desktop.run("/usr/bin/gio", ["open", "contacts://show?id=0F3A-ADA"])
        #expect(gio.status == 0, "\(gio.errors)\n\(desktop.busLog)")
        let ada = try await desktop.activeWindow(titled: "Ada Lovelace – Contacts")
        let xdg = try await desktop.run("/usr/bin/xdg-open", ["contacts://show?id=51C2-BOB"], extra: ["DESKTOP_STARTUP_ID": "waypost-test-bob"])
        #expect(xdg.status == 0, "\(xdg.errors)\n\(desktop.busLog)")
        let bob = try await desktop.activeWindow(titled: "Bob Kahn – Contacts")
        #expect(bob != ada)
        #expect(try await desktop.startupID(of: bob) == "waypost-test-bob")

        // Ada's window again, and a continued activity for Dan in a new one.
        try await desktop.run("/usr/bin/xdg-open", ["contacts://show?id=0F3A-ADA"], extra: ["DESKTOP_STARTUP_ID": "waypost-test-ada"])
        #expect(try await desktop.activeWindow(titled: "Ada Lovelace – Contacts") == ada)
        #expect(try await desktop.startupID(of: ada) == "waypost-test-ada")
        try await desktop.run(
            WindowDesktop.waypost, ["continue", "io.waypost.example.contact.show", "--target", "D41D-DAN"],
            extra: ["DESKTOP_STARTUP_ID": "waypost-test-dan"])
        let dan = try await desktop.activeWindow(titled: "Dan Bricklin – Contacts")
        #expect(try await desktop.startupID(of: dan) == "waypost-test-dan")

        // Bob's window closed: its scene goes (RemoveScene), Ada's and Dan's stay.
        let bobScene = try #require(try await desktop.scene(preferring: "51C2-BOB"))
        try await desktop.closeWindow(bob)
        try await waitUntil("the dispatcher forgets \(bobScene)", context: desktop.busLog) {
            try await !desktop.status().contains(bobScene)
        }
        #expect(try await desktop.scene(preferring: "0F3A-ADA") != nil)
        #expect(try await desktop.scene(preferring: "D41D-DAN") != nil)
    }
}
