import ExternalEvents
import Testing

@Suite("Rule 1: single scene")
struct SingleSceneRule {
    @Test("a single-scene app sends every event to its open scene, ignoring all modifiers")
    func ignoresModifiers() throws {
        let app = try router(
            [.windowGroup("main"), .windowGroup("photo", matching: ["photoIdentifier="])],
            [scene("only", of: "main", preferring: ["nothing-like-it"], allowing: .none)], multiple: false)
        let decision = app.route(.url("myphotos://show?photoIdentifier=42"))
        #expect(decision.action == .deliver(scene: "only"))
        #expect(decision.rule == .singleScene)
    }

    @Test("with no scene open, a single-scene app goes on with matching declarations")
    func noneOpenContinuesWithMatching() throws {
        let app = try router([.windowGroup("main"), .windowGroup("photo", matching: ["photoIdentifier="])], multiple: false)
        #expect(app.route(.url("myphotos://show?photoIdentifier=42")).action == .create(declaration: "photo"))
        #expect(app.route(.url("myphotos://other")).rule == .default)
        #expect(app.route(.url("myphotos://other")).reason.contains("single scene and none is open"))
    }
}

@Suite("Rule 2: open scenes that prefer or allow")
struct OpenSceneRules {
    @Test("the first open scene that prefers the event gets it")
    func firstPreferring() throws {
        let app = try router(
            [.windowGroup("main")],
            [scene("a", of: "main", preferring: ["other"]), scene("b", of: "main", preferring: ["item=7"]),
             scene("c", of: "main", preferring: ["item="])])
        let decision = app.route(.url("app://open?item=7"))
        #expect(decision.action == .deliver(scene: "b"))
        #expect(decision.rule == .preferring)
        #expect(decision.condition == "item=7")
    }

    @Test("a preferring match anywhere beats an allowing match earlier in the search order")
    func preferringBeatsAllowing() throws {
        let app = try router(
            [.windowGroup("main")],
            [scene("first", of: "main", allowing: ["*"]), scene("last", of: "main", preferring: ["item=7"])])
        #expect(app.route(.url("app://open?item=7")).action == .deliver(scene: "last"))
    }

    @Test("with no preferring scene, the first open scene that allows the event gets it")
    func firstAllowing() throws {
        let app = try router(
            [.windowGroup("main")],
            [scene("a", of: "main", allowing: ["nope"]), scene("b", of: "main", allowing: ["open"]),
             scene("c", of: "main", allowing: ["*"])])
        let decision = app.route(.url("app://open?item=7"))
        #expect(decision.action == .deliver(scene: "b"))
        #expect(decision.rule == .allowing)
    }

    @Test("a scene with several modifiers uses the union of their sets")
    func unionOfModifiers() throws {
        var app = try router([.windowGroup("main")])
        try app.addScene("s", declaration: "main", modifiers: [
            EventPreference(preferring: ["alpha"]), EventPreference(preferring: ["beta"], allowing: ["gamma"]),
        ])
        #expect(app.route(.url("x://alpha")).rule == .preferring)
        #expect(app.route(.url("x://beta")).rule == .preferring)
        #expect(app.route(.url("x://gamma")).rule == .allowing)
        #expect(app.route(.url("x://delta")).rule == .default)
    }

    @Test("an open scene without the modifier handles nothing; a new scene is created")
    func noModifierNoHandling() throws {
        let app = try router([.windowGroup("main")], [OpenScene(id: "plain", declaration: "main")])
        let decision = app.route(.url("x://anything"))
        #expect(decision.action == .create(declaration: "main"))
        #expect(decision.reason.contains("none of the 1 open scene prefers or allows it"))
    }

    @Test("search order: the most recently added or activated scene is searched first")
    func recency() throws {
        var app = try router([.windowGroup("main")])
        try app.addScene("old", declaration: "main", modifiers: [EventPreference(allowing: ["*"])])
        try app.addScene("new", declaration: "main", modifiers: [EventPreference(allowing: ["*"])])
        #expect(app.route(.url("x://y")).action == .deliver(scene: "new"))
        try app.activateScene("old")
        #expect(app.route(.url("x://y")).action == .deliver(scene: "old"))
        #expect(app.openScenes.map(\.id) == ["old", "new"])
        try app.removeScene("old")
        #expect(app.route(.url("x://y")).action == .deliver(scene: "new"))
    }

    @Test("sets can change while the scene is open, without moving it in the search order")
    func changingSets() throws {
        var app = try router([.windowGroup("main")], [scene("a", of: "main"), scene("b", of: "main", allowing: ["*"])])
        #expect(app.route(.url("x://item/1")).action == .deliver(scene: "b"))
        try app.setModifiers([EventPreference(allowing: ["item/"])], ofScene: "a")
        #expect(app.route(.url("x://item/1")).action == .deliver(scene: "a"))
        try app.setModifiers([], ofScene: "a")
        #expect(app.route(.url("x://item/1")).action == .deliver(scene: "b"))
        #expect(app.openScenes.map(\.id) == ["a", "b"])
    }
}

@Suite("Rule 3: declarations that match")
struct DeclarationRules {
    @Test("the first declaration in declaration order whose matching set matches gets a new scene")
    func firstMatching() throws {
        let app = try router([
            .windowGroup("main"), .windowGroup("a", matching: ["nomatch"]), .windowGroup("b", matching: ["show"]),
            .windowGroup("c", matching: ["show"]),
        ])
        let decision = app.route(.url("x://show/1"))
        #expect(decision.action == .create(declaration: "b"))
        #expect(decision.rule == .matching)
        #expect(decision.condition == "show")
    }

    @Test("open scenes come before declarations")
    func openScenesFirst() throws {
        let app = try router([.windowGroup("photo", matching: ["photo"])], [scene("w", of: "photo", allowing: ["photo"])])
        #expect(app.route(.url("x://photo")).action == .deliver(scene: "w"))
    }

    @Test("a document group takes a file whose content type is one of its types")
    func documentType() throws {
        let app = try router([.windowGroup("main", matching: ["zzz"]), .documentGroup("editor", contentTypes: ["text/markdown"])])
        let decision = app.route(.url("file:///home/me/notes.md"))
        #expect(decision.action == .create(declaration: "editor"))
        #expect(decision.rule == .documentType)
        #expect(decision.reason.contains("text/markdown"))
    }

    @Test("a document group takes subtypes of its types: text/markdown is a text/plain")
    func documentSubtype() throws {
        let app = try router([.windowGroup("main"), .documentGroup("viewer", contentTypes: ["text/plain"])])
        #expect(app.route(.url("file:///home/me/notes.md")).action == .create(declaration: "viewer"))
        #expect(app.route(.url("file:///home/me/photo.png")).action == .create(declaration: "main"))
    }

    @Test("a document group ignores matching")
    func documentIgnoresMatching() throws {
        let app = try router([
            .windowGroup("main"), .documentGroup("editor", contentTypes: ["image/png"], matching: ["notes"]),
        ])
        #expect(app.route(.url("file:///notes.md")).action == .create(declaration: "main"))
        #expect(app.route(.url("file:///a.png")).action == .create(declaration: "editor"))
    }

    @Test("a document group examines an activity's webpageURL")
    func documentFromActivity() throws {
        let app = try router([.windowGroup("main", matching: ["zzz"]), .documentGroup("editor", contentTypes: ["text/plain"])])
        let activity = UserActivity(type: "edit", targetContentIdentifier: "doc-1", webpageURL: "file:///x/readme.txt")
        #expect(app.route(.activity(activity)).action == .create(declaration: "editor"))
    }

    @Test("declaration order decides between a matching window group and a document group")
    func declarationOrder() throws {
        let docFirst = try router([.documentGroup("editor", contentTypes: ["text/plain"]), .windowGroup("w", matching: ["notes"])])
        let windowFirst = try router([.windowGroup("w", matching: ["notes"]), .documentGroup("editor", contentTypes: ["text/plain"])])
        #expect(docFirst.route(.url("file:///notes.md")).action == .create(declaration: "editor"))
        #expect(windowFirst.route(.url("file:///notes.md")).action == .create(declaration: "w"))
    }

    @Test("without a content-type resolver no document group matches")
    func noResolver() throws {
        let app = try SceneRouter(declarations: [.windowGroup("main"), .documentGroup("editor", contentTypes: ["text/plain"])])
        #expect(app.route(.url("file:///notes.txt")).action == .create(declaration: "main"))
    }
}

@Suite("Rules 4 and 5: default and unhandled")
struct DefaultRules {
    @Test("the first window group without a matching modifier is the default")
    func firstWithoutModifier() throws {
        let app = try router([.windowGroup("a", matching: ["zzz"]), .windowGroup("b"), .windowGroup("c")])
        let decision = app.route(.url("x://y"))
        #expect(decision.action == .create(declaration: "b"))
        #expect(decision.rule == .default)
    }

    @Test("a declaration with an empty matching set has the modifier, and is not the default")
    func emptyMatchingHasModifier() throws {
        let app = try router([.windowGroup("empty", matching: []), .windowGroup("plain")])
        #expect(app.route(.url("x://y")).action == .create(declaration: "plain"))
    }

    @Test("a document group is never the default")
    func documentNeverDefault() throws {
        let app = try router([.documentGroup("editor", contentTypes: ["text/plain"])])
        #expect(app.route(.url("x://y")).action == .unhandled)
    }

    @Test("with no open scene, no match and no default, the event is unhandled")
    func unhandled() throws {
        let app = try router([.windowGroup("a", matching: ["zzz"]), .windowGroup("b", matching: [])])
        let decision = app.route(.url("x://y"))
        #expect(decision.action == .unhandled)
        #expect(decision.rule == .none)
        #expect(decision.reason.contains("no scene takes it"))
    }
}

@Suite("What an event is compared by")
struct EventStrings {
    @Test("a URL is compared by its absolute string")
    func urlString() throws {
        let app = try router([.windowGroup("main"), .windowGroup("p", matching: ["myphotos://show"])])
        #expect(app.route(.url("myphotos://show?x")).action == .create(declaration: "p"))
    }

    @Test("an activity is compared by its targetContentIdentifier, not its webpageURL, when it has one")
    func activityIdentifier() throws {
        let app = try router([.windowGroup("main"), .windowGroup("p", matching: ["contact-7"]), .windowGroup("w", matching: ["example.com"])])
        let activity = UserActivity(type: "show", targetContentIdentifier: "contact-7", webpageURL: "https://example.com/c/7")
        #expect(app.route(.activity(activity)).action == .create(declaration: "p"))
    }

    @Test("an activity without a targetContentIdentifier is compared by its webpageURL")
    func activityWebpage() throws {
        let app = try router([.windowGroup("main"), .windowGroup("w", matching: ["example.com/c/"])])
        let activity = UserActivity(type: "show", webpageURL: "https://example.com/c/7")
        #expect(app.route(.activity(activity)).action == .create(declaration: "w"))
    }

    @Test("an activity with neither matches only \"*\"")
    func activityWithNothing() throws {
        let app = try router([.windowGroup("main", matching: ["show"])], [scene("s", of: "main", allowing: ["*"])])
        #expect(app.route(.activity(UserActivity(type: "show"))).action == .deliver(scene: "s"))
        let empty = try router([.windowGroup("main", matching: ["show"])])
        #expect(empty.route(.activity(UserActivity(type: "show", title: "show"))).action == .unhandled)
    }
}

@Suite("Scene changes")
struct SceneChanges {
    @Test("changes name the offending id")
    func errors() throws {
        var app = try router([.windowGroup("main")], [OpenScene(id: "a", declaration: "main")])
        #expect(throws: RoutingError.duplicateScene("a")) { try app.addScene("a", declaration: "main") }
        #expect(throws: RoutingError.unknownDeclaration("nope", scene: "b")) { try app.addScene("b", declaration: "nope") }
        #expect(throws: RoutingError.unknownScene("zz")) { try app.removeScene("zz") }
        #expect(throws: RoutingError.unknownScene("zz")) { try app.activateScene("zz") }
        #expect(throws: RoutingError.unknownScene("zz")) { try app.setModifiers([], ofScene: "zz") }
        #expect(throws: RoutingError.duplicateDeclaration("main")) {
            try SceneRouter(declarations: [.windowGroup("main"), .documentGroup("main", contentTypes: [])])
        }
        #expect(throws: RoutingError.duplicateScene("a")) {
            try SceneRouter(declarations: [.windowGroup("main")], openScenes: [OpenScene(id: "a", declaration: "main"), OpenScene(id: "a", declaration: "main")])
        }
    }

    @Test("open scenes keep the order they were given in, and their modifiers")
    func order() throws {
        let given = [scene("x", of: "main", allowing: ["a"]), scene("y", of: "main"), scene("z", of: "main", preferring: ["*"])]
        let app = try router([.windowGroup("main")], given)
        #expect(app.openScenes == given)
    }
}
