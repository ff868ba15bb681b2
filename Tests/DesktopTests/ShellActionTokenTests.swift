import Desktop
import Foundation
import Testing

/// What the dispatcher is told when no token can be had for an action on the desktop's own surface.
/// That one is honoured by mutter is tested on GNOME Shell itself (WaylandTests).
@Suite struct ShellActionTokenTests {
    @Test func aDisplayNobodyListensAtIsNamed() throws {
        let display = FileManager.default.temporaryDirectory.appendingPathComponent("wayland-nobody-\(UUID().uuidString)").path
        #expect(throws: ShellActionTokenError.noCompositor(display: display)) {
            try ShellActionToken.obtain(waylandDisplay: display)
        }
    }
}
