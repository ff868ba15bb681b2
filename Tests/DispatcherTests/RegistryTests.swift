import DBus
@testable import Dispatcher
import ExternalEvents
import Testing
import WaypostContract

/// The registry alone, without a bus: who may change what, and what vanishes with a process.
@Suite("registry of processes and scenes")
struct RegistryTests {
    static let contacts = [SceneDeclaration.windowGroup("contacts")]

    static func registry(_ owners: [(String, String)]) throws -> Registry {
        var registry = Registry(contentTypes: nil)
        for (owner, app) in owners {
            registry.register(owner: try BusName(owner), appID: app, objectPath: "/app", pid: 1, singleScene: false)
            try registry.declare(owner: owner, contacts)
        }
        return registry
    }

    @Test("scenes of one app share a search order across its processes, most recent first")
    func searchOrder() throws {
        var registry = try Self.registry([(":1.1", "contacts"), (":1.2", "contacts")])
        try registry.addScene(owner: ":1.1", scene: "a", declaration: "contacts")
        try registry.addScene(owner: ":1.2", scene: "b", declaration: "contacts")
        try registry.addScene(owner: ":1.1", scene: "c", declaration: "contacts")
        #expect(registry.router(of: "contacts")?.openScenes.map(\.id) == ["c", "b", "a"])
        try registry.activateScene(owner: ":1.1", scene: "a")
        #expect(registry.router(of: "contacts")?.openScenes.map(\.id) == ["a", "c", "b"])
        #expect(registry.processes(of: "contacts").map(\.owner.rawValue) == [":1.1", ":1.2"])
        #expect(registry.owner(ofScene: "b", in: "contacts")?.owner.rawValue == ":1.2")
    }

    @Test("only the connection that added a scene may change it")
    func ownership() throws {
        var registry = try Self.registry([(":1.1", "contacts"), (":1.2", "contacts"), (":1.3", "other")])
        try registry.addScene(owner: ":1.1", scene: "mine", declaration: "contacts")
        for stranger in [":1.2", ":1.3"] {
            var copy = registry
            #expect(throws: DispatchError.self) { try copy.removeScene(owner: stranger, scene: "mine") }
            #expect(throws: DispatchError.self) { try copy.activateScene(owner: stranger, scene: "mine") }
            #expect(throws: DispatchError.self) {
                try copy.setModifiers(owner: stranger, scene: "mine", [EventPreference(allowing: ["*"])], bytes: 1)
            }
        }
        do {
            try registry.removeScene(owner: ":1.2", scene: "mine")
            Issue.record("a stranger removed the scene")
        } catch {
            #expect(error == .notOwner(scene: "mine", app: "contacts"))
        }
        do {
            try registry.removeScene(owner: ":9.9", scene: "mine")
        } catch {
            #expect(error == .notRegistered(caller: ":9.9"))
        }
        #expect(throws: DispatchError.sceneExists("mine", app: "contacts")) {
            try registry.addScene(owner: ":1.2", scene: "mine", declaration: "contacts")
        }
        #expect(registry.router(of: "contacts")?.openScenes.map(\.id) == ["mine"])
    }

    @Test("a process that goes away takes its scenes, and the last one its app")
    func vanishing() throws {
        var registry = try Self.registry([(":1.1", "contacts"), (":1.2", "contacts")])
        try registry.addScene(owner: ":1.1", scene: "a", declaration: "contacts")
        try registry.addScene(owner: ":1.2", scene: "b", declaration: "contacts")
        registry.removeProcess(":1.2")
        #expect(registry.router(of: "contacts")?.openScenes.map(\.id) == ["a"])
        #expect(registry.isReady("contacts"))
        registry.removeProcess(":1.1")
        #expect(registry.router(of: "contacts") == nil)
        #expect(!registry.isReady("contacts"))
        #expect(registry.processes.isEmpty)
    }

    @Test("declaring again keeps the scenes of declarations that remain")
    func redeclare() throws {
        var registry = try Self.registry([(":1.1", "photos")])
        try registry.declare(owner: ":1.1", [.windowGroup("browser"), .windowGroup("Photo", matching: ["photoIdentifier="])])
        try registry.addScene(owner: ":1.1", scene: "main", declaration: "browser")
        try registry.addScene(owner: ":1.1", scene: "p1", declaration: "Photo")
        try registry.declare(owner: ":1.1", [.windowGroup("browser")])
        #expect(registry.router(of: "photos")?.openScenes.map(\.id) == ["main"])
        #expect(throws: DispatchError.unknownDeclaration("Photo", app: "photos")) {
            try registry.addScene(owner: ":1.1", scene: "p2", declaration: "Photo")
        }
        #expect(throws: DispatchError.self) {
            try registry.declare(owner: ":1.1", [.windowGroup("twice"), .windowGroup("twice")])
        }
    }

    @Test("a process that announces Ready is ready only once it said so")
    func announcedReadiness() throws {
        var registry = Registry(contentTypes: nil)
        registry.register(owner: ":1.1", appID: "photos", objectPath: "/app", pid: 1, singleScene: false, announcesReady: true)
        #expect(throws: DispatchError.self) { try registry.markReady(owner: ":1.1") }  // declare first
        try registry.declare(owner: ":1.1", Self.contacts)
        #expect(!registry.isReady("photos"))
        try registry.markReady(owner: ":1.1")
        #expect(registry.isReady("photos"))
        #expect(throws: DispatchError.notRegistered(caller: ":1.9")) { try registry.markReady(owner: ":1.9") }
    }

    @Test("bounds on what one client may store")
    func limits() throws {
        var registry = try Self.registry([(":1.1", "contacts")])
        #expect(throws: DispatchError.self) { try registry.addScene(owner: ":1.1", scene: "", declaration: "contacts") }
        let long = String(repeating: "x", count: Budgets.idBytes + 1)
        #expect(throws: DispatchError.self) { try registry.addScene(owner: ":1.1", scene: long, declaration: "contacts") }
        try registry.addScene(owner: ":1.1", scene: "s", declaration: "contacts")
        let many = Contract.Modifier(preferring: (0...Budgets.conditionsPerScene).map { "c\($0)" }, allowing: [])
        #expect(throws: DispatchError.budgetExceeded(
            what: "the conditions of scene \"s\"", app: "contacts", amount: Budgets.conditionsPerScene + 1,
            limit: Budgets.conditionsPerScene)) { try Budgets.conditionBytes(ofScene: "s", app: "contacts", [many]) }
        let huge = String(repeating: "y", count: Budgets.conditionBytes + 1)
        #expect(throws: DispatchError.invalidArgument(huge, reason: "a condition may be at most 4096 bytes")) {
            try Budgets.conditionBytes(ofScene: "s", app: "contacts", [Contract.Modifier(preferring: [], allowing: [huge])])
        }
        let wide = Contract.Modifier(preferring: (0..<20).map { "\($0)" + String(repeating: "z", count: 4000) }, allowing: [])
        #expect(throws: DispatchError.self) { try Budgets.conditionBytes(ofScene: "s", app: "contacts", [wide]) }
        #expect(registry.router(of: "contacts")?.openScenes.first?.modifiers == [])
    }

    @Test("an app's open scenes together hold at most their budget of condition bytes; a refused change changes nothing")
    func conditionBudgetPerApp() throws {
        var registry = try Self.registry([(":1.1", "contacts")])
        let perScene = Budgets.conditionBytesPerScene
        let scenes = Budgets.conditionBytesPerApp / perScene
        for index in 0..<scenes {
            try registry.addScene(owner: ":1.1", scene: "s\(index)", declaration: "contacts")
            try registry.setModifiers(owner: ":1.1", scene: "s\(index)", [EventPreference(allowing: ["s\(index)"])], bytes: perScene)
        }
        try registry.addScene(owner: ":1.1", scene: "one-more", declaration: "contacts")
        #expect(throws: DispatchError.budgetExceeded(
            what: "the condition bytes of all open scenes", app: "contacts", amount: Budgets.conditionBytesPerApp + 1,
            limit: Budgets.conditionBytesPerApp)) {
            try registry.setModifiers(owner: ":1.1", scene: "one-more", [EventPreference(allowing: ["x"])], bytes: 1)
        }
        #expect(registry.router(of: "contacts")?.route(.url("app://x")).rule != .allowing)
        // Closing a scene gives its bytes back; replacing a scene's sets counts only the new ones.
        try registry.removeScene(owner: ":1.1", scene: "s0")
        try registry.setModifiers(owner: ":1.1", scene: "one-more", [EventPreference(allowing: ["x"])], bytes: 1)
        try registry.setModifiers(owner: ":1.1", scene: "s1", [EventPreference(allowing: ["s1"])], bytes: perScene - 1)
        #expect(registry.conditionBytes(of: "contacts") == Budgets.conditionBytesPerApp - perScene)
        registry.removeProcess(":1.1")
        #expect(registry.conditionBytes(of: "contacts") == 0)
    }

    @Test("declarations are app-wide: a sibling process may repeat them, not replace them, and cannot close the first one's scenes")
    func declarationsAcrossProcesses() throws {
        var registry = try Self.registry([(":1.1", "contacts")])
        try registry.addScene(owner: ":1.1", scene: "mine", declaration: "contacts")
        registry.register(owner: BusName(":1.2"), appID: "contacts", objectPath: "/app", pid: 2, singleScene: false)
        #expect(throws: DispatchError.declarationMismatch(app: "contacts", differing: "other", declaredBy: ":1.1")) {
            try registry.declare(owner: ":1.2", [.windowGroup("other")])
        }
        #expect(throws: DispatchError.declarationMismatch(app: "contacts", differing: "more", declaredBy: ":1.1")) {
            try registry.declare(owner: ":1.2", Self.contacts + [.windowGroup("more")])
        }
        try registry.declare(owner: ":1.2", Self.contacts)
        try registry.addScene(owner: ":1.2", scene: "theirs", declaration: "contacts")
        #expect(registry.router(of: "contacts")?.openScenes.map(\.id) == ["theirs", "mine"])
        // Once the sibling is gone, the first process keeps its scene …
        registry.removeProcess(":1.2")
        #expect(registry.router(of: "contacts")?.openScenes.map(\.id) == ["mine"])
        // … and, alone again, may change the app's declarations (the scenes of dropped ones close).
        try registry.declare(owner: ":1.1", [.windowGroup("other")])
        #expect(registry.router(of: "contacts")?.openScenes.isEmpty == true)
    }

    @Test("an app that closed most of its scenes has its tables built again at their size, and routes as before")
    func compaction() throws {
        var registry = try Self.registry([(":1.1", "contacts")])
        for index in 0..<2000 {
            try registry.addScene(owner: ":1.1", scene: "s\(index)", declaration: "contacts")
            try registry.setModifiers(owner: ":1.1", scene: "s\(index)", [EventPreference(preferring: ["item-\(index)/"])], bytes: 8)
        }
        for index in 0..<1900 { try registry.removeScene(owner: ":1.1", scene: "s\(index)") }
        let router = try #require(registry.router(of: "contacts"))
        #expect(router.capacity < 2000)
        #expect(router.openScenes.map(\.id) == (1900..<2000).reversed().map { "s\($0)" })
        #expect(router.route(.url("app://item-1950/")).action == .deliver(scene: "s1950"))
        #expect(router.route(.url("app://item-10/")).rule == .default)
        #expect(registry.conditionBytes(of: "contacts") == 100 * 8)
        #expect(registry.owner(ofScene: "s1999", in: "contacts")?.owner.rawValue == ":1.1")
    }
}
