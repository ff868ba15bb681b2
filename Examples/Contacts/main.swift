// Apple's ContactList example: each window prefers its selected contact's id, and allows any
// event only while nothing is selected. Run `waypost-contacts --window 0F3A-ADA --window -` for a
// window showing Ada and an empty one; launched with no options it opens windows on demand.
import SampleSupport
import Synchronization
import WaypostKit

let contacts = ["0F3A-ADA": "Ada Lovelace", "51C2-BOB": "Bob Kahn", "9E07-CAROL": "Carol Shaw", "D41D-DAN": "Dan Bricklin"]
let activityType = "io.waypost.example.contact.show"
let console = SampleConsole(app: "Contacts")
let app = try Application(id: "io.waypost.example.Contacts", declarations: [.windowGroup("contacts")])

/// One window: a contact list with a selection.
final class ContactList: Sendable {
    let scene: Scene
    private let selection = Mutex<String?>(nil)

    init(_ scene: Scene) {
        self.scene = scene
        scene.onOpenURL { [self] url, _ in
            guard let id = queryValue("id", in: url), contacts[id.uppercased()] != nil else {
                throw SampleError("no known contact in \(url)")
            }
            console.record(scene: scene.id, "open-url", ["url": url])
            select(id.uppercased())
        }
        scene.onContinueUserActivity(activityType) { [self] activity, _ in
            console.record(scene: scene.id, "continue-activity", ["target": activity.targetContentIdentifier ?? ""])
            if let id = activity.targetContentIdentifier { select(id) }
        }
        select(nil)
    }

    /// The selection changed: so do the window's sets and the activity it publishes.
    func select(_ id: String?) {
        selection.withLock { $0 = id }
        scene.handlesExternalEvents(preferring: id.map { [$0] } ?? [], allowing: id == nil ? ["*"] : [])
        scene.userActivity(activityType, isActive: id != nil) { activity in
            // Found by the desktop's search under the contact's name.
            activity.title = id.map { contacts[$0] ?? $0 } ?? "Contact"
            activity.targetContentIdentifier = id
            activity.keywords = ["contact"]
            activity.isEligibleForSearch = true
            activity.persistentIdentifier = id
            activity.isEligibleForHandoff = true
        }
        console.show("window \(scene.id): " + (id.map { "\(contacts[$0] ?? $0) (\($0)); prefers [\($0)]" } ?? "Select a contact; allows [*]"))
    }
}

app.onCreateScene { request in
    let window = ContactList(try app.openScene(request.declaration.id))
    return window.scene
}
for selected in commandLineValues("--window") {
    let window = ContactList(try app.openScene("contacts"))
    if selected != "-" { window.select(selected) }
}
await console.run(app)
