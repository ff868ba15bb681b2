// The ice-cream shop of the NSUserActivity article in the seeds, as a terminal app: each window
// shows one size; the size on show is published for search (title "Large Ice Cream", the size's
// id in the user info), and a search result picked in GNOME Shell or KRunner comes back to the
// window showing that size, or opens one that shows it. `--forget` deletes what was saved.
// Run `waypost-icecream --window 1 --window 3` for windows showing Small and Large.
import SampleSupport
import Synchronization
import WaypostKit

struct IceCreamSize: Sendable {
    let id: Int64
    let name: String
    let price: String
}

let sizes = [
    IceCreamSize(id: 1, name: "Small", price: "$1.00"),
    IceCreamSize(id: 2, name: "Medium", price: "$1.45"),
    IceCreamSize(id: 3, name: "Large", price: "$1.90"),
]
let selectionType = "io.waypost.example.icecream-selection"
let console = SampleConsole(app: "IceCream")
let app = try Application(id: "io.waypost.example.IceCream", declarations: [.windowGroup("sizes")])

/// One window: the list of sizes, and the one selected.
final class SizeList: Sendable {
    let scene: Scene

    init(_ scene: Scene) {
        self.scene = scene
        scene.onContinueUserActivity(selectionType) { [self] activity, _ in
            // The size travels in the user info, as a number, as the article's example reads it.
            guard let id = activity.userInfo["sizeId"]?.integerValue, sizes.contains(where: { $0.id == id }) else {
                throw SampleError("no known size in \(activity.userInfo)")
            }
            console.record(scene: scene.id, "continue-activity", ["target": activity.targetContentIdentifier ?? "", "sizeId": "\(id)"])
            select(id)
        }
        select(nil)
    }

    /// The selection changed: the window prefers its size, and publishes it for search.
    func select(_ id: Int64?) {
        let size = sizes.first { $0.id == id }
        let target = size.map { "icecream/size/\($0.id)" }
        scene.handlesExternalEvents(preferring: target.map { [$0] } ?? [], allowing: size == nil ? ["*"] : [])
        scene.userActivity(selectionType, isActive: size != nil) { activity in
            guard let size else { return }
            activity.title = "\(size.name) Ice Cream"
            activity.targetContentIdentifier = target
            activity.userInfo = ["sizeId": .integer(size.id)]
            activity.keywords = ["ice", "cream", "dessert"]
            activity.isEligibleForSearch = true
            activity.persistentIdentifier = "size-\(size.id)"
        }
        console.show("window \(scene.id): " + (size.map { "\($0.name) ice cream, \($0.price)" } ?? "Ice Creams: pick a size"))
    }
}

app.onCreateScene { request in SizeList(try app.openScene(request.declaration.id)).scene }
for selected in commandLineValues("--window") {
    let window = SizeList(try app.openScene("sizes"))
    if let id = Int64(selected) { window.select(id) }
}
if CommandLine.arguments.contains("--forget") {
    // The article's "Forget" button: nothing of the shop stays in the desktop's search.
    try await app.start()
    try await app.deleteAllSavedActivities()
    console.show("forgot every saved size")
    app.stop()
} else {
    await console.run(app)
}
