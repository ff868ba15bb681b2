// The ice-cream shop of the NSUserActivity article with real windows (GTK 4): each window is a
// scene showing the sizes; the size chosen in it is what the window prefers and what it publishes
// for the desktop's search ("Large Ice Cream"). A search result, or Handoff, comes back to the window
// showing that size, to the front with the opener's token, or opens a window that shows it.
// `--window 3` opens a window showing Large.
import Glibc
import GtkSupport
import SampleSupport
import WaypostKit

let sizes = [
    ListItem(id: "1", label: "Small — $1.00"), ListItem(id: "2", label: "Medium — $1.45"), ListItem(id: "3", label: "Large — $1.90"),
]
let names = ["1": "Small", "2": "Medium", "3": "Large"]
let selectionType = "io.waypost.example.icecream-selection"
let console = SampleConsole(app: "IceCream")
guard GtkLoop.initialize() else {
    console.show("cannot open a display: set DISPLAY or WAYLAND_DISPLAY")
    exit(69)
}
let app = try Application(id: "io.waypost.example.IceCream", declarations: [.windowGroup("sizes")])

/// One window: the sizes, and the one chosen.
@GtkActor final class SizeWindow {
    /// Every open window by its scene's id; a window stays alive until it is closed.
    static var open: [String: SizeWindow] = [:]
    let scene: Scene
    let window = ListWindow(title: "Ice Creams", heading: "Pick a size", items: sizes, action: "New Window")

    init(_ scene: Scene) {
        self.scene = scene
        Self.open[scene.id] = self
        window.onSelect = { [unowned self] id in select(id) }
        window.onFocus = { scene.activate() }
        window.onAction = { _ = try? SizeWindow.openWindow().window.present() }
        window.onClose = { [unowned self] in closed() }
        scene.onContinueUserActivity(selectionType) { [self] activity, context in
            // The size travels in the user info, as a number, as the article's example reads it.
            let id = activity.userInfo["sizeId"]?.integerValue.map(String.init)
            console.record(scene: scene.id, "continue-activity", ["target": activity.targetContentIdentifier ?? "", "sizeId": id ?? ""])
            try await show(id, context)
        }
        select(nil)
    }

    static func openWindow() throws -> SizeWindow { SizeWindow(try app.openScene("sizes")) }

    /// The chosen size changed: the window prefers it and publishes it for search.
    func select(_ id: String?) {
        let size = id.flatMap { id in names[id].map { (id: id, name: $0, target: "icecream/size/\(id)") } }
        window.select(size?.id)
        window.setTitle(size.map { "\($0.name) Ice Cream" } ?? "Ice Creams")
        window.setHeading(size.map { "\($0.name) Ice Cream" } ?? "Pick a size")
        scene.handlesExternalEvents(preferring: size.map { [$0.target] } ?? [], allowing: size == nil ? ["*"] : [])
        scene.userActivity(selectionType, isActive: size != nil) { activity in
            guard let size, let number = Int64(size.id) else { return }
            activity.title = "\(size.name) Ice Cream"
            activity.targetContentIdentifier = size.target
            activity.userInfo = ["sizeId": .integer(number)]
            activity.keywords = ["ice", "cream", "dessert"]
            activity.isEligibleForSearch = true
            activity.persistentIdentifier = "size-\(size.id)"
        }
        console.show("window \(scene.id): " + (size.map { "\($0.name) ice cream; prefers [\($0.target)]" } ?? "pick a size; allows [*]"))
    }

    /// A continued activity for size `id`: choose it and come to the front with the opener's token.
    func show(_ id: String?, _ context: EventContext) throws {
        let known = id.flatMap { names[$0] } != nil
        if known { select(id) }
        window.present(token: context.activationToken)
        guard known else { throw SampleError("no known size \(id ?? "(none)")") }
    }

    /// The user closed the window: its scene goes; with the last window, the app.
    func closed() {
        scene.close()
        Self.open[scene.id] = nil
        console.record(scene: scene.id, "closed")
        guard Self.open.isEmpty else { return }
        Task {
            try? await app.synchronize()
            app.stop()
        }
    }
}

app.onCreateScene { _ in try await SizeWindow.openWindow().scene }
Task { @GtkActor in
    for selected in commandLineValues("--window") {
        let window = try SizeWindow.openWindow()
        window.select(selected)
        window.window.present()
    }
    await console.run(app)
}
GtkLoop.run()
