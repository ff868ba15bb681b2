import Foundation
import TestSupport
import Testing

/// GNOME on Wayland, GNOME Shell's own surfaces: a click on the banner of a notification Waypost
/// posted, and Return on a Waypost result in the overview's search, each end with the right
/// Contacts window focused. The shell gives the app no token either way (its banner sends
/// `ActionInvoked` without `ActivationToken`; its search passes a timestamp): the dispatcher gets
/// one from mutter right after the user's click or key (`gtk_shell1.notify_launch`). Without that,
/// both end with the opener still focused (checked with the dispatcher before it did).
@Suite(.serialized) struct GnomeShellSurfaceTests {
    @Test(.enabled(if: MutterFocusTests.runsHere))
    func aClickOnWaypostsNotificationBannerEndsWithTheContactsWindowFocused() async throws {
        let desktop = try await GnomeShell.desktop()
        defer { desktop.close() }
        let shell = try #require(desktop.compositor as? GnomeShell)
        _ = try await FocusScenarios.contactsAndAFocusedOpener(on: desktop)

        let post = try await desktop.run(
            WaylandDesktop.waypost, ["notify", "post", "Ada Lovelace", "--body", "Missed call", "--open", FocusScenarios.ada])
        #expect(post.status == 0, "\(post.errors)\n\(desktop.busLog)")
        try await shell.clickBanner("Ada Lovelace", context: desktop.logs("gnome-shell"))
        try await desktop.waitForFocus(on: FocusScenarios.adaWindow, context: desktop.logs("contacts", "gnome-shell"))
        #expect(try await FocusScenarios.contactsWindows(on: desktop) == [FocusScenarios.adaWindow, FocusScenarios.emptyWindow])
    }

    @Test(.enabled(if: MutterFocusTests.runsHere))
    func returnOnAWaypostSearchResultEndsWithTheContactsWindowFocused() async throws {
        let desktop = try await GnomeShell.desktop()
        defer { desktop.close() }
        let shell = try #require(desktop.compositor as? GnomeShell)
        // Ada's window publishes her contact as an activity eligible for search.
        _ = try await FocusScenarios.contactsAndAFocusedOpener(on: desktop)
        // The shell asks the search provider as each key is typed, not again: Ada must be found
        // by the time "ada" is typed (her window saves her activity after it is shown).
        try await waitUntil("Waypost's search finds Ada", context: desktop.busLog) {
            let found = try await desktop.run(WaylandDesktop.waypost, ["activities", "search", "ada"])
            return found.status == 0 && found.output.contains("Ada Lovelace")
        }

        try await shell.showOverview()
        try await shell.type("ada")
        var overview: GnomeShell.Overview?
        try await waitUntil("Waypost's result for Ada is the one Return picks", context: "\(String(describing: overview))\n\(desktop.busLog)") {
            overview = try await shell.overview()
            return overview?.defaultResult == "Ada Lovelace"
        }
        try await shell.pressKey("Return")
        try await desktop.waitForFocus(on: FocusScenarios.adaWindow, context: desktop.logs("contacts", "gnome-shell"))
        try await waitUntil("the overview closes") {
            let overview = try await shell.overview()
            return !overview.visible && !overview.animating
        }
        #expect(try await FocusScenarios.contactsWindows(on: desktop) == [FocusScenarios.adaWindow, FocusScenarios.emptyWindow])
    }
}
