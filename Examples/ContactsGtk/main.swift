// Apple's ContactList example with real windows (GTK 4): each window is a scene; it prefers its
// selected contact's id, and allows any link only while nothing is selected. A link or a continued
// activity for a contact brings that contact's window to the front with the opener's token, or
// opens a new window when no window takes it; closing a window closes its scene, the last one
// ends the app. `--window 0F3A-ADA --window -` opens a window showing Ada and an empty one.
import Glibc
import GtkSupport
import SampleSupport
import WaypostKit

let contacts = [
    ListItem(id: "0F3A-ADA", label: "Ada Lovelace"), ListItem(id: "51C2-BOB", label: "Bob Kahn"),
    ListItem(id: "9E07-CAROL", label: "Carol Shaw"), ListItem(id: "D41D-DAN", label: "Dan Bricklin"),
]
let activityType = "io.waypost.example.contact.show"
let console = SampleConsole(app: "Contacts")
guard GtkLoop.initialize() else {
    console.show("cannot open a display: set DISPLAY or WAYLAND_DISPLAY")
    exit(69)
}
let app = try Application(id: "io.waypost.example.Contacts", declarations: [.windowGroup("contacts")])

/// One window: the contact list and its selection, which decide what links the window takes.
@GtkActor final class ContactWindow {
    /// Every open window by its scene's id; a window stays alive until it is closed.
    static var open: [String: ContactWindow] = [:]
    let scene: Scene
    let window = ListWindow(title: "Contacts", heading: "Select a contact", items: contacts, action: "New Window")

    init(_ scene: Scene) {
        self.scene = scene
        Self.open[scene.id] = self
        window.onSelect = { [unowned self] id in select(id) }
        window.onFocus = { scene.activate() }
        window.onAction = { _ = try? ContactWindow.openWindow().window.present() }
        window.onClose = { [unowned self] in closed() }
        scene.onOpenURL { [self] url, context in
            console.record(scene: scene.id, "open-url", ["url": url])
            try await show(queryValue("id", in: url)?.uppercased(), context)
        }
        scene.onContinueUserActivity(activityType) { [self] activity, context in
            console.record(scene: scene.id, "continue-activity", ["target": activity.targetContentIdentifier ?? ""])
            try await show(activity.targetContentIdentifier, context)
        }
        select(nil)
    }

    /// A new window with a scene of its own, not shown yet.
    static func openWindow() throws -> ContactWindow { ContactWindow(try app.openScene("contacts")) }

    /// The selection changed: so do the window's title, its sets and the activity it publishes.
    func select(_ id: String?) {
        let contact = contacts.first { $0.id == id }
        window.select(contact?.id)
        window.setTitle(contact.map { "\($0.label) – Contacts" } ?? "Contacts")
        window.setHeading(contact?.label ?? "Select a contact")
        scene.handlesExternalEvents(preferring: contact.map { [$0.id] } ?? [], allowing: contact == nil ? ["*"] : [])
        scene.userActivity(activityType, isActive: contact != nil) { activity in
            activity.title = contact?.label ?? "Contact"
            activity.targetContentIdentifier = contact?.id
            activity.keywords = ["contact"]
            activity.isEligibleForSearch = true
            activity.persistentIdentifier = contact?.id
            activity.isEligibleForHandoff = true
        }
        console.show("window \(scene.id): " + (contact.map { "\($0.label) (\($0.id)); prefers [\($0.id)]" } ?? "Select a contact; allows [*]"))
    }

    /// An event for `id` arrived: select it and come to the front with the opener's token. An
    /// unknown contact still shows the window (a new one would otherwise stay hidden), then refuses.
    func show(_ id: String?, _ context: EventContext) throws {
        let known = contacts.contains { $0.id == id }
        if known { select(id) }
        window.present(token: context.activationToken)
        guard known else { throw SampleError("no known contact \(id ?? "(none)")") }
    }

    /// The user closed the window: its scene goes; with the last window, the app.
    func closed() {
        scene.close()
        Self.open[scene.id] = nil
        console.record(scene: scene.id, "closed")
        console.show("window \(scene.id) closed")
        guard Self.open.isEmpty else { return }
        Task {
            try? await app.synchronize()
            app.stop()
        }
    }
}

app.onCreateScene { _ in try await ContactWindow.openWindow().scene }
Task { @GtkActor in
    for selected in commandLineValues("--window") {
        let window = try ContactWindow.openWindow()
        if selected != "-" { window.select(selected.uppercased()) }
        window.window.present()
    }
    await console.run(app)
}
GtkLoop.run()
