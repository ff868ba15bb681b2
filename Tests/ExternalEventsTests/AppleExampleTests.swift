import ExternalEvents
import Testing

/// The two examples in Apple's documentation of `handlesExternalEvents`.
@Suite("Apple's examples")
struct AppleExampleTests {
    /// MyPhotos: a browser window group, and a "Photo" window group matching `photoIdentifier=`.
    let photos: [SceneDeclaration] = [.windowGroup("browser"), .windowGroup("Photo", matching: ["photoIdentifier="])]

    @Test("a photo link opens a new Photo scene")
    func photoLink() throws {
        let decision = try router(photos).route(.url("myphotos://show?photoIdentifier=42"))
        #expect(decision.action == .create(declaration: "Photo"))
        #expect(decision.rule == .matching)
    }

    @Test("any other link opens a new browser window")
    func otherLink() throws {
        let decision = try router(photos).route(.url("myphotos://albums/summer"))
        #expect(decision.action == .create(declaration: "browser"))
        #expect(decision.rule == .default)
    }

    /// ContactList: prefers the selected contact's UUID; allows "*" only when nothing is selected.
    func contactList(_ id: String, selected: String?) -> OpenScene {
        OpenScene(id: id, declaration: "contacts", modifiers: [EventPreference(
            preferring: selected.map { [$0] } ?? [], allowing: selected == nil ? ["*"] : [])])
    }

    let uuid = "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"
    let otherUUID = "9B2F4C6A-1D3E-4F5A-8B7C-0D1E2F3A4B5C"

    func handoff(_ id: String) -> ExternalEvent {
        .activity(UserActivity(type: "com.example.contact", targetContentIdentifier: id, title: "Contact"))
    }

    @Test("the window showing that contact prefers it, even behind a window with nothing selected")
    func selectedContactPreferred() throws {
        let app = try router([.windowGroup("contacts")], [contactList("empty", selected: nil), contactList("showing", selected: uuid)])
        let decision = app.route(handoff(uuid))
        #expect(decision.action == .deliver(scene: "showing"))
        #expect(decision.rule == .preferring)
    }

    @Test("another contact goes to the window with nothing selected")
    func otherContactAllowed() throws {
        let app = try router([.windowGroup("contacts")], [contactList("showing", selected: uuid), contactList("empty", selected: nil)])
        let decision = app.route(handoff(otherUUID))
        #expect(decision.action == .deliver(scene: "empty"))
        #expect(decision.rule == .allowing)
    }

    @Test("when every window shows a contact, another contact gets a new window")
    func allBusy() throws {
        let app = try router([.windowGroup("contacts")], [contactList("showing", selected: uuid)])
        #expect(app.route(handoff(otherUUID)).action == .create(declaration: "contacts"))
    }

    @Test("selecting a contact updates the sets live")
    func selectionChanges() throws {
        var app = try router([.windowGroup("contacts")], [contactList("w", selected: nil)])
        #expect(app.route(handoff(uuid)).rule == .allowing)
        try app.setModifiers(contactList("w", selected: uuid).modifiers, ofScene: "w")
        #expect(app.route(handoff(uuid)).rule == .preferring)
        #expect(app.route(handoff(otherUUID)).action == .create(declaration: "contacts"))
    }

    @Test("the UUID matches whatever its case")
    func uuidCase() throws {
        let app = try router([.windowGroup("contacts")], [contactList("showing", selected: uuid)])
        #expect(app.route(handoff(uuid.lowercased())).action == .deliver(scene: "showing"))
    }
}
