import Foundation
import TestSupport
import Testing

extension FlatpakAppTests {
    /// The tools the portal desktop needs besides the suite's (`make deps`).
    static let screenTools = ["/usr/bin/Xvfb", "/usr/bin/openbox", "/usr/bin/wmctrl", "/usr/libexec/xdg-desktop-portal", "/usr/libexec/xdg-desktop-portal-gtk"]
    static var portalRunsHere: Bool { FlatpakApp.runsHere && screenTools.allSatisfy { FileManager.default.isExecutableFile(atPath: $0) } }

    /// The title of xdg-desktop-portal-gtk's app chooser (1.14), shown when OpenURI cannot tell
    /// which app the user wants.
    static let chooserTitle = "Open With…"

    /// A sandboxed app opens a host app's link the way sandboxed apps must, through the real
    /// portal's OpenURI. With Waypost installed, GIO recommends Waypost's handler alone for the
    /// scheme, so the portal asks nobody: it hands the link to the dispatcher, which takes the app's
    /// request as it went by (and with it the activation token the app gave), and the link reaches
    /// the scene that prefers it with that token.
    @Test(.enabled(if: portalRunsHere))
    func aLinkOpenedThroughThePortalReachesItsSceneWithTheTokenAndNoChooser() async throws {
        try await FlatpakDesktop.with(portal: true) { desktop in
            try await installNotes(desktop)
            try await desktop.installWaypost()
            try await desktop.startHostApp(Self.notes)

            let uri = "notes://show?note=42"
            let token = "waypost-test-\(UUID().uuidString)"
            let open = try await desktop.openInSandbox(["portal", uri, token])
            var titles: [String] = []
            try await waitUntil("the link reaches Notes, or the portal asks the user", context: "\(titles)\n\(desktop.busLog)") {
                titles = try await desktop.windowTitles()
                return titles.contains(Self.chooserTitle) || !desktop.links(in: desktop.log(of: Self.notes)).isEmpty
            }
            #expect(!titles.contains(Self.chooserTitle), "the portal showed its chooser: \(titles)")
            let event = try #require(desktop.events(in: desktop.log(of: Self.notes)).first { $0["uri"] as? String == uri })
            #expect(event["event"] as? String == "OpenURL")
            #expect(event["scene"] as? String == "note-42")
            #expect((event["platform_data"] as? [String: Any])?["activation-token"] as? String == token, "\(event)")
            // The portal answered the app once it handed the link on.
            #expect(try await open.nextLine("the portal answers the app")?.contains(#""response": 0"#) == true)
            #expect(!(try await desktop.windowTitles()).contains(Self.chooserTitle))
        }
    }
}
