import Foundation
import TestSupport
import Testing

/// GNOME on Wayland: GNOME Shell 43 (mutter 43) headless, with GNOME Shell's bus services, the user
/// acting through a virtual keyboard and pointer. mutter focuses a mapped window only when it
/// presents a valid xdg-activation token: one the compositor granted the focused app, passed on by
/// Waypost and presented by the sample the way GtkSupport does it.
///
/// gnome-shell and gjs come from `make deps`; WAYPOST_REQUIRE_WAYLAND=1 makes these tests fail
/// rather than skip where they are missing.
@Suite(.serialized) struct MutterFocusTests {
    static let runsHere = GnomeShell.runsHere || WaylandDesktop.required

    @Test(.enabled(if: runsHere))
    func aLinkFromTheFocusedAppEndsWithItsContactsWindowFocused() async throws {
        let desktop = try await GnomeShell.desktop()
        defer { desktop.close() }
        try await FocusScenarios.aLinkFromTheFocusedApp(on: desktop)
    }

    @Test(.enabled(if: runsHere), arguments: ["XDG_ACTIVATION_TOKEN", "DESKTOP_STARTUP_ID"])
    func waypostOpenWithTheFocusedAppsTokenEndsTheSame(variable: String) async throws {
        let desktop = try await GnomeShell.desktop()
        defer { desktop.close() }
        try await FocusScenarios.waypostOpenWithTheFocusedAppsToken(in: variable, on: desktop)
    }

    @Test(.enabled(if: runsHere))
    func gioOpenFromATerminalDeliversTheLinkAndLeavesFocusWhereItWas() async throws {
        let desktop = try await GnomeShell.desktop()
        defer { desktop.close() }
        try await FocusScenarios.gioOpenFromATerminalLeavesFocusWhereItWas(on: desktop)
    }

    /// What a sandboxed app (or Chromium) does: the portal's OpenURI with the app's token. No
    /// "Open With…" chooser may come up (it would take focus), and the window comes to the front.
    @Test(.enabled(if: runsHere))
    func aLinkTheFocusedAppHandsThePortalEndsWithItsContactsWindowFocused() async throws {
        let desktop = try await GnomeShell.desktop()
        defer { desktop.close() }
        let opener = try await FocusScenarios.contactsAndAFocusedOpener(on: desktop)
        try await opener.openWithPortal(FocusScenarios.ada)
        #expect(try await opener.opened(FocusScenarios.ada, context: desktop.logs("opener")), "\(desktop.logs("opener"))")
        try await desktop.waitForFocus(on: FocusScenarios.adaWindow, context: desktop.logs("contacts", "opener"))
        #expect(try await FocusScenarios.contactsWindows(on: desktop) == [FocusScenarios.adaWindow, FocusScenarios.emptyWindow])
    }

    @Test(.enabled(if: runsHere))
    func thePythonAppsWindowComesToTheFrontForALinkFromTheFocusedApp() async throws {
        let desktop = try await GnomeShell.desktop(apps: [], entries: [FocusScenarios.pythonApp: FocusScenarios.pythonEntry])
        defer { desktop.close() }
        try await FocusScenarios.thePythonAppsWindowForALinkFromTheFocusedApp(on: desktop)
    }
}
