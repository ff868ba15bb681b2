import Foundation
import TestSupport
import Testing

/// What a user does and sees on any Wayland desktop, played on the compositor a suite starts:
/// Contacts shows Ada's window and an empty one (which takes any link), the opener app has the
/// user's focus, and a link for a contact comes from somewhere. The window that has keyboard focus
/// at the end is what the user sees; each scenario also makes sure the link arrived, so that none
/// can pass by nothing happening.
enum FocusScenarios {
    static let ada = "contacts://show?id=0F3A-ADA", adaWindow = "Ada Lovelace – Contacts"
    static let bob = "contacts://show?id=51C2-BOB", bobWindow = "Bob Kahn – Contacts"
    static let emptyWindow = "Contacts"

    /// Contacts (Ada's window and an empty one) and the opener, which the user then focuses.
    static func contactsAndAFocusedOpener(on desktop: WaylandDesktop) async throws -> Opener {
        _ = try await desktop.startContacts(windows: ["0F3A-ADA", "-"], expecting: [adaWindow, emptyWindow])
        let opener = try await desktop.startOpener()
        try await desktop.compositor.focus(Opener.title)
        return opener
    }

    /// The titles of Contacts' windows, sorted.
    static func contactsWindows(on desktop: WaylandDesktop) async throws -> [String] {
        try await desktop.compositor.windowTitles().filter { $0.hasSuffix("Contacts") }.sorted()
    }

    /// A link the user opens in the focused app (GIO with its launch context, whose token the
    /// compositor grants) ends with Contacts' window for it focused: the same window, not a new one.
    static func aLinkFromTheFocusedApp(on desktop: WaylandDesktop) async throws {
        let opener = try await contactsAndAFocusedOpener(on: desktop)
        try await desktop.compositor.userOpens(ada, in: opener)
        #expect(try await opener.opened(ada, context: desktop.logs("opener")), "\(desktop.logs("opener"))")
        try await desktop.waitForFocus(on: adaWindow, context: desktop.logs("contacts", "opener"))
        #expect(try await contactsWindows(on: desktop) == [adaWindow, emptyWindow])
    }

    /// `waypost open` run with the token the focused app got for it (in `variable`, as a launcher
    /// sets it) ends the same.
    static func waypostOpenWithTheFocusedAppsToken(in variable: String, on desktop: WaylandDesktop) async throws {
        let opener = try await contactsAndAFocusedOpener(on: desktop)
        let token = try await opener.token()
        try #require(!token.isEmpty, "the focused opener got no token")
        let open = try await desktop.run(WaylandDesktop.waypost, ["open", ada], extra: [variable: token])
        #expect(open.status == 0, "\(open.errors)\n\(desktop.busLog)")
        try await desktop.waitForFocus(on: adaWindow, context: desktop.logs("contacts"))
        #expect(try await contactsWindows(on: desktop) == [adaWindow, emptyWindow])
    }

    /// `gio open` from a terminal carries no token: the link reaches Contacts (the empty window
    /// shows Bob) and focus stays with the opener. Proved with the user's next link from it, which
    /// Contacts handles after Bob's (in order, on one Wayland connection): nothing got focus
    /// before that link's window did.
    static func gioOpenFromATerminalLeavesFocusWhereItWas(on desktop: WaylandDesktop) async throws {
        let opener = try await contactsAndAFocusedOpener(on: desktop)
        let before = try await desktop.compositor.focusHistory().count
        let gio = try await desktop.run("/usr/bin/gio", ["open", bob])
        #expect(gio.status == 0, "\(gio.errors)\n\(desktop.busLog)")
        try await waitUntil("the empty window shows Bob", context: desktop.logs("contacts")) {
            try await contactsWindows(on: desktop) == [adaWindow, bobWindow]
        }
        #expect(try await desktop.compositor.focusedTitle() == Opener.title)

        try await desktop.compositor.userOpens(ada, in: opener)
        try await desktop.waitForFocus(on: adaWindow, context: desktop.logs("contacts", "opener"))
        let focused = try await desktop.compositor.focusHistory().dropFirst(before).filter { !$0.isEmpty }
        #expect(Array(focused) == [adaWindow], "Bob's window took focus without a token")
    }

    /// Contacts in Python (Tests/Apps/contacts_gtk.py), launched by the dispatcher for a first link
    /// (a new window: both compositors focus a newly mapped window without a token), then a link
    /// from the focused opener brings its window back to the front.
    static func thePythonAppsWindowForALinkFromTheFocusedApp(on desktop: WaylandDesktop) async throws {
        let gio = try await desktop.run("/usr/bin/gio", ["open", ada])
        #expect(gio.status == 0, "\(gio.errors)\n\(desktop.busLog)")
        try await waitUntil("the Python app shows Ada", context: desktop.busLog) {
            try await desktop.compositor.windowTitles().contains(adaWindow)
        }
        let opener = try await desktop.startOpener()
        try await desktop.compositor.focus(Opener.title)
        try await desktop.compositor.userOpens(ada, in: opener)
        #expect(try await opener.opened(ada, context: desktop.logs("opener")))
        try await desktop.waitForFocus(on: adaWindow, context: desktop.busLog)
        #expect(try await contactsWindows(on: desktop) == [adaWindow])
    }

    static let pythonApp = "io.waypost.example.ContactsPython"
    static let pythonEntry = """
        [Desktop Entry]
        Type=Application
        Name=Contacts (Python)
        Exec=/usr/bin/python3 \(WaylandDesktop.packageRoot.appendingPathComponent("Tests/Apps/contacts_gtk.py").path)
        StartupNotify=true
        MimeType=x-scheme-handler/contacts;
        X-Waypost=true
        X-Waypost-Activity-Types=io.waypost.example.contact.show;

        """
}
