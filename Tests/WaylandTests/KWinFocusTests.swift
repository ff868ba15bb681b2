import Foundation
import TestSupport
import Testing

/// KWin on Wayland (KWin 5.27 `--virtual`, without the rest of Plasma, on the lab's bus). KWin
/// grants an activation token only to the active window's client and focuses a mapped window only
/// with a valid one. It has no input devices in that mode: the user's click on the opener is
/// KWin activating it (scripting), and the opener opens the link itself.
///
/// kwin-wayland comes from `make deps`; WAYPOST_REQUIRE_WAYLAND=1 makes these tests fail rather
/// than skip where it is missing.
@Suite(.serialized) struct KWinFocusTests {
    static let runsHere = KWin.runsHere || WaylandDesktop.required

    @Test(.enabled(if: runsHere))
    func aLinkFromTheFocusedAppEndsWithItsContactsWindowFocused() async throws {
        let desktop = try await KWin.desktop()
        defer { desktop.close() }
        try await FocusScenarios.aLinkFromTheFocusedApp(on: desktop)
    }

    @Test(.enabled(if: runsHere), arguments: ["XDG_ACTIVATION_TOKEN", "DESKTOP_STARTUP_ID"])
    func waypostOpenWithTheFocusedAppsTokenEndsTheSame(variable: String) async throws {
        let desktop = try await KWin.desktop()
        defer { desktop.close() }
        try await FocusScenarios.waypostOpenWithTheFocusedAppsToken(in: variable, on: desktop)
    }

    @Test(.enabled(if: runsHere))
    func gioOpenFromATerminalDeliversTheLinkAndLeavesFocusWhereItWas() async throws {
        let desktop = try await KWin.desktop()
        defer { desktop.close() }
        try await FocusScenarios.gioOpenFromATerminalLeavesFocusWhereItWas(on: desktop)
    }

    @Test(.enabled(if: runsHere))
    func thePythonAppsWindowComesToTheFrontForALinkFromTheFocusedApp() async throws {
        let desktop = try await KWin.desktop(apps: [], entries: [FocusScenarios.pythonApp: FocusScenarios.pythonEntry])
        defer { desktop.close() }
        try await FocusScenarios.thePythonAppsWindowForALinkFromTheFocusedApp(on: desktop)
    }
}
