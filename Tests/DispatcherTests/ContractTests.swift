import DBus
import ExternalEvents
import Foundation
import TestSupport
import Testing
import WaypostContract

/// The XML in `dbus/` is the contract: `WaypostContract` must state what it states, and what the
/// daemon and a participating app export must match it.
@Suite("the D-Bus contract in dbus/", .serialized)
struct ContractTests {
    static let contractDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("dbus")

    static func contract(_ file: String) throws -> InterfaceTable {
        try InterfaceTable(xml: Data(contentsOf: contractDirectory.appendingPathComponent(file)))
    }

    // MARK: WaypostContract against the XML, no bus

    @Test("WaypostContract declares every method, signal, argument and key of dbus/*.xml, and no other")
    func members() throws {
        let dispatcher = try Self.contract("io.waypost.Dispatcher1.xml")
        let application = try Self.contract("io.waypost.Application1.xml")
        #expect(dispatcher.interfaces == [Contract.Dispatcher1.interface.rawValue])
        #expect(application.interfaces == [Contract.Application1.interface.rawValue])
        #expect(Self.lines(Contract.Dispatcher1.members) == dispatcher.membersWithKeys(of: "io.waypost.Dispatcher1"))
        #expect(Self.lines(Contract.Application1.members) == application.membersWithKeys(of: "io.waypost.Application1"))
        // Not vacuous: the files were read, keys and all.
        #expect(dispatcher.membersWithKeys(of: "io.waypost.Dispatcher1").count == 37)
        #expect(dispatcher.membersWithKeys(of: "io.waypost.Dispatcher1").contains {
            $0.hasPrefix("method RegisterApplication(") && $0.contains("[announces-ready b, single-scene b]")
        })
    }

    @Test("the error names of dbus/*.xml are WaypostContract's, and no other")
    func errors() throws {
        let dispatcher = try Self.contract("io.waypost.Dispatcher1.xml")
        let application = try Self.contract("io.waypost.Application1.xml")
        #expect(dispatcher.errors(of: "io.waypost.Dispatcher1") == Contract.Dispatcher1.errors.map(\.errorName.rawValue).sorted())
        #expect(application.errors(of: "io.waypost.Application1") == Contract.Application1.errors.map(\.errorName.rawValue).sorted())
        #expect(dispatcher.errors(of: "io.waypost.Dispatcher1").count == 24)
        for failure in Contract.Failure.allCases { #expect(Contract.Failure(failure.errorName) == failure) }
        #expect(Contract.Failure("org.freedesktop.DBus.Error.Failed") == nil)
    }

    @Test("the closed value sets of dbus/*.xml (io.waypost.Values) are WaypostContract's enums, value for value, and no other")
    func values() throws {
        let dispatcher = try Self.contract("io.waypost.Dispatcher1.xml")
        #expect(dispatcher.values(of: "io.waypost.Dispatcher1") == Contract.Dispatcher1.values)
        #expect(dispatcher.misplacedValues == [])
        // Not vacuous: the annotations were read, to the last value.
        #expect(dispatcher.values(of: "io.waypost.Dispatcher1")["rule"]?.contains("browser") == true)
        #expect(Contract.Dispatcher1.values["rule"]?.count == 9)
        // Each set belongs to a string key some member declares.
        let keys = Set(Contract.Dispatcher1.members.flatMap { $0.arguments + $0.results }.flatMap(\.keys))
        for key in Contract.Dispatcher1.values.keys { #expect(keys.contains(Contract.KeyDeclaration(key, "s")), "\(key)") }
        // Every rule the routing core decides has its value in the contract.
        for rule in Decision.Rule.allCases { #expect(Contract.RoutingOutcome.Rule(rule).rawValue == rule.rawValue) }
        #expect(throws: Contract.KeyError.unexpectedValue(
            key: "rule", value: "teleport", allowed: Contract.RoutingOutcome.Rule.allCases.map(\.rawValue))
        ) { try Contract.RoutingOutcome(["rule": "teleport"]) }
    }

    @Test("an activity carries the same keys everywhere: published, continued, delivered, created")
    func activityKeys() throws {
        let published = Set(Contract.Dispatcher1.setCurrentActivity.arguments[2].keys)
        #expect(published.count == 10)
        #expect(Set(Contract.Dispatcher1.continueActivity.arguments[1].keys) == published)
        #expect(Set(Contract.Application1.continueUserActivity.arguments[2].keys) == published)
        #expect(Set(Contract.Application1.createScene.arguments[1].keys) == published.union([
            Contract.KeyDeclaration("uri", "s"), Contract.KeyDeclaration("activity-type", "s"),
            Contract.KeyDeclaration("notification-id", "s"), Contract.KeyDeclaration("notification-action", "s"),
        ]))
        // And the XML says so too.
        let application = try Self.contract("io.waypost.Application1.xml").membersWithKeys(of: "io.waypost.Application1")
        #expect(application.contains { $0.contains("ContinueUserActivity(") && $0.contains("expiration-date x") && $0.contains("keywords as") })
    }

    @Test("the bus name and object path are those of dbus/: the XML's node and the activation file's Name=")
    func names() throws {
        #expect(try Self.contract("io.waypost.Dispatcher1.xml").nodePath == Contract.objectPath.rawValue)
        let service = try String(contentsOf: Self.contractDirectory.appendingPathComponent("io.waypost.Dispatcher.service"), encoding: .utf8)
        #expect(service.split(separator: "\n").contains("Name=\(Contract.busName)"))
        // The daemon serves org.freedesktop.Application for its own entry at the path GIO derives from the id.
        #expect(Contract.FreedesktopApplication.objectPath(forApplicationID: Contract.busName.rawValue) == Contract.objectPath)
        #expect(Contract.FreedesktopApplication.objectPath(forApplicationID: "org.example.My-App") == "/org/example/My_App")
    }

    /// A member as `InterfaceTable.membersWithKeys` renders the XML's.
    static func lines(_ members: [Contract.Member]) -> [String] {
        members.map { member in
            let direction = { (way: String) in member.kind == .signal ? "" : way + " " }
            let arguments = member.arguments.map { (direction("in"), $0) } + member.results.map { (direction("out"), $0) }
            let rendered = arguments.map { way, parameter in
                let line = "\(way)\(parameter.signature) \(parameter.name)"
                return parameter.keys.isEmpty ? line : line + " [" + parameter.keys.map(\.description).sorted().joined(separator: ", ") + "]"
            }
            return "\(member.kind.rawValue) \(member.name)(\(rendered.joined(separator: ", ")))"
        }.sorted()
    }

    // MARK: The codecs, no bus

    @Test("each codec writes only keys its argument declares, with their types, and reads back what it wrote")
    func codecs() throws {
        func check(_ dictionary: [String: Variant], declared: [Contract.KeyDeclaration], _ where_: String) {
            let written = Set(dictionary.map { Contract.KeyDeclaration($0.key, $0.value.signature) })
            #expect(written.isSubset(of: Set(declared)), "\(where_): \(written.subtracting(declared))")
            #expect(!written.isEmpty)
        }
        let options = Contract.RegistrationOptions(singleScene: true, announcesReady: true)
        check(options.variants, declared: Contract.Dispatcher1.registerApplication.arguments[2].keys, "options")
        #expect(try Contract.RegistrationOptions(options.variants) == options)
        #expect(try Contract.RegistrationOptions([:]) == Contract.RegistrationOptions())

        let declarations = [
            Contract.Declaration(id: "photos", kind: .windowGroup, matching: ["myphotos://*"]),
            Contract.Declaration(id: "plain", kind: .windowGroup),
            Contract.Declaration(id: "never", kind: .windowGroup, matching: []),
            Contract.Declaration(id: "notes", kind: .documentGroup, contentTypes: ["text/markdown"]),
        ]
        for declaration in declarations {
            check(declaration.structure.fields.1, declared: Contract.Dispatcher1.declareScenes.arguments[0].keys, "declaration")
            #expect(try Contract.Declaration(declaration.structure) == declaration)
        }

        let platform = Contract.PlatformData(activationToken: "token", desktopStartupID: "startup")
        check(platform.variants, declared: Contract.Dispatcher1.open.arguments[1].keys, "platform_data")
        #expect(Contract.PlatformData(platform.variants) == platform)

        let activity = Contract.ActivityDetails(
            targetContentIdentifier: "contact/42", webpageURL: "https://example.org/42", title: "Ada", userInfo: ["n": 1])
        check(activity.variants, declared: Contract.Dispatcher1.continueActivity.arguments[1].keys, "activity")
        #expect(try Contract.ActivityDetails(activity.variants) == activity)
        #expect(activity.userInfoText == ["n": "1"])
        #expect(Contract.ActivityDetails(userInfo: ["s": "text"]).userInfoText == ["s": "text"])

        let full = Contract.ActivityDetails(
            targetContentIdentifier: "size/2", webpageURL: "https://example.org/2", title: "Medium", userInfo: ["sizeId": 2],
            keywords: ["ice", "cream"], eligibleForSearch: true, eligibleForHandoff: false, expirationDate: 1_900_000_000,
            persistentIdentifier: "size-2", requiredUserInfoKeys: ["sizeId"])
        check(full.variants, declared: Contract.Dispatcher1.setCurrentActivity.arguments[2].keys, "SetCurrentActivity's activity")
        #expect(full.variants.count == 10)
        #expect(try Contract.ActivityDetails(full.variants) == full)
        #expect(try Contract.ActivityDetails([:]) == Contract.ActivityDetails())

        let current = Contract.CurrentActivity(appID: "org.example.App", sceneID: "s1", activityType: "org.example.show", activity: full.variants)
        check(Contract.CurrentActivity.variants(current), declared: Contract.Dispatcher1.getCurrentActivity.results[0].keys, "current")
        #expect(try Contract.CurrentActivity.decode(Contract.CurrentActivity.variants(current)) == current)
        #expect(try Contract.CurrentActivity.decode([:]) == nil)
        let saved = Contract.SavedActivity(
            id: "7", appID: "org.example.App", appName: "App", activityType: "org.example.show", lastUsed: 1_800_000_000,
            activity: full.variants)
        check(saved.variants, declared: Contract.Dispatcher1.searchActivities.results[0].keys, "results")
        #expect(try Contract.SavedActivity(saved.variants) == saved)

        let events: [Contract.SceneEvent] = [.url("contacts://42"), .activity(type: "org.example.show", activity: activity.variants)]
        for event in events {
            check(event.variants, declared: Contract.Application1.createScene.arguments[1].keys, "event")
            #expect(try Contract.SceneEvent(event.variants) == event)
        }

        let delivered = Contract.RoutingOutcome(action: .deliver, appID: "org.example.App", sceneID: "s1", rule: .preferring)
        check(delivered.variants, declared: Contract.Dispatcher1.open.results[0].keys, "Open's outcome")
        #expect(try Contract.RoutingOutcome(delivered.variants) == delivered)
        var routed = Contract.RoutingOutcome(
            action: .create, appID: "org.example.App", declarationID: "main", rule: .default, reason: "why", micros: 120)
        check(routed.variants, declared: Contract.Dispatcher1.routed.arguments[1].keys, "Routed's outcome")
        #expect(try Contract.RoutingOutcome(routed.variants) == routed)
        routed = Contract.RoutingOutcome(reason: "no", error: .noHandler)
        check(routed.variants, declared: Contract.Dispatcher1.routed.arguments[1].keys, "Routed's failure")
        #expect(routed.variants["error"] == .string("io.waypost.Error.NoHandler"))
        #expect(try Contract.RoutingOutcome(routed.variants) == routed)
        #expect(throws: Contract.KeyError.self) { try Contract.RoutingOutcome(["error": "org.freedesktop.DBus.Error.Failed"]) }
        // Explain's plan: every step with the delivered keys and a reason; a step's rule is checked too.
        var first = Contract.RoutingOutcome(action: .deliver, appID: "org.example.App", sceneID: "s1", rule: .allowing, reason: "a")
        let next = Contract.RoutingOutcome(action: .fallback, appID: "org.example.Browser", rule: .browser, reason: "b")
        first.steps = [first, next]
        check(first.variants, declared: Contract.Dispatcher1.explain.results[0].keys, "Explain's outcome")
        for step in first.steps! { check(step.variants, declared: Contract.Dispatcher1.explain.results[0].keys, "a step") }
        #expect(try Contract.RoutingOutcome(first.variants) == first)
        #expect(throws: Contract.KeyError.unexpectedValue(key: "rule", value: "teleport", allowed: Contract.RoutingOutcome.Rule.allCases.map(\.rawValue))) {
            try Contract.RoutingOutcome(["steps": Variant([["rule": Variant.string("teleport")]])])
        }
        #expect(throws: Contract.KeyError.self) { try Contract.RoutingOutcome(first.variants.merging(["steps": Variant([first.variants])]) { $1 }) }

        let process = Contract.ProcessStatus(
            appID: "org.example.App", owner: ":1.7", pid: 42, objectPath: "/org/example/App", singleScene: false,
            declarations: declarations)
        check(process.variants, declared: Contract.Dispatcher1.status.results[0].keys, "processes")
        #expect(try Contract.ProcessStatus(process.variants) == process)
        let scene = Contract.SceneStatus(
            appID: "org.example.App", sceneID: "s1", declarationID: "photos", owner: ":1.7",
            modifiers: [Contract.Modifier(preferring: ["a"], allowing: ["*"])])
        check(scene.variants, declared: Contract.Dispatcher1.status.results[1].keys, "scenes")
        #expect(try Contract.SceneStatus(scene.variants) == scene)
    }

    @Test("the routing core's declarations, modifiers and activities travel as the contract says and come back equal")
    func routingCoreValues() throws {
        let declarations: [SceneDeclaration] = [
            .windowGroup("browser"), .windowGroup("photo", matching: ConditionSet(["photoIdentifier="])),
            .windowGroup("never", matching: ConditionSet([])),
            .documentGroup("editor", contentTypes: ["text/markdown"], matching: ConditionSet(["notes://"])),
        ]
        for declaration in declarations {
            let sent = Contract.Declaration(declaration).structure
            #expect(SceneDeclaration(try Contract.Declaration(sent)) == declaration)
        }
        // An absent "matching" is no modifier; an empty one is a modifier that never matches.
        #expect(Contract.Declaration(declarations[0]).structure.fields.1["matching"] == nil)
        #expect(Contract.Declaration(declarations[2]).structure.fields.1["matching"] == Variant([String]()))
        let modifier = EventPreference(preferring: ConditionSet(["a"]), allowing: ConditionSet(["*"]))
        #expect(EventPreference(Contract.Modifier(modifier)) == modifier)
        let details = Contract.ActivityDetails(targetContentIdentifier: "contact/42", title: "Ada", userInfo: ["id": "42", "n": 7])
        #expect(UserActivity(type: "org.example.show", try Contract.ActivityDetails(details.variants)) == UserActivity(
            type: "org.example.show", targetContentIdentifier: "contact/42", title: "Ada", userInfo: ["id": "42", "n": "7"]))
    }

    @Test("user info is one value type: read from JSON, sent on the bus, read back and written as JSON alike")
    func userInfo() throws {
        let json = #"{"id":42,"ratio":0.5,"name":"Ada","flag":true,"tags":["a",1],"nested":{"deeper":[2.5]}}"#
        let info = try JSONDecoder().decode([String: UserInfoValue].self, from: Data(json.utf8))
        #expect(info == ["id": 42, "ratio": 0.5, "name": "Ada", "flag": true, "tags": ["a", 1], "nested": ["deeper": [2.5]]])
        let variants = UserInfoValue.variants(info)
        #expect(variants["id"] == .int64(42) && variants["ratio"] == .double(0.5) && variants["flag"] == .boolean(true))
        #expect(variants.mapValues(UserInfoValue.init) == info)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let written = try encoder.encode(variants.mapValues(UserInfoValue.init))
        #expect(try JSONDecoder().decode([String: UserInfoValue].self, from: written) == info)
        // Bytes travel as ay and are written as their numbers; null has no D-Bus type and is refused.
        #expect(UserInfoValue(UserInfoValue.data([1, 255]).variant) == .data([1, 255]))
        #expect(String(decoding: try encoder.encode(UserInfoValue.data([1, 255])), as: UTF8.self) == "[1,255]")
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([String: UserInfoValue].self, from: Data(#"{"a":null}"#.utf8)) }
    }

    @Test("a dictionary that breaks the contract is refused naming the key and the value")
    func refusals() {
        #expect(throws: Contract.KeyError.wrongType(key: "single-scene", expected: "b", found: "s")) {
            try Contract.RegistrationOptions(["single-scene": "yes"])
        }
        #expect(throws: Contract.KeyError.unexpectedValue(key: "kind", value: "tab-group", allowed: ["window-group", "document-group"])) {
            try Contract.Declaration(Structure(("tabs", ["kind": "tab-group"])))
        }
        #expect(throws: Contract.KeyError.missing(keys: ["kind"])) {
            try Contract.Declaration(Structure(("tabs", [String: Variant]())))
        }
        #expect(throws: Contract.KeyError.missing(keys: ["uri", "activity-type"])) {
            try Contract.SceneEvent(["title": "no event here"])
        }
        #expect(throws: Contract.KeyError.unexpectedValue(key: "action", value: "teleport", allowed: ["deliver", "create", "launch", "fallback", "nowhere", "offer", "choose"])) {
            try Contract.RoutingOutcome(["action": "teleport"])
        }
        // Platform data is advisory: a token of the wrong type is dropped, not a refusal.
        #expect(Contract.PlatformData(["activation-token": 7, "desktop-startup-id": "id"]) == Contract.PlatformData(desktopStartupID: "id"))
    }

    // MARK: What is exported on a bus

    @Test("the daemon exports io.waypost.Dispatcher1 exactly as dbus/io.waypost.Dispatcher1.xml says")
    func dispatcher() async throws {
        let session = try await PeerDesktop()
        defer { session.close() }
        let bus = try await session.connect()
        let exported = try await Self.introspect(bus, "io.waypost.Dispatcher", "/io/waypost/Dispatcher")
        let contract = try Self.contract("io.waypost.Dispatcher1.xml")
        #expect(!contract.members(of: "io.waypost.Dispatcher1").isEmpty)
        #expect(exported.members(of: "io.waypost.Dispatcher1") == contract.members(of: "io.waypost.Dispatcher1"))
        // What GIO openers call on a DBusActivatable entry.
        #expect(exported.members(of: "org.freedesktop.Application") == [
            "method Activate(in a{sv} platform_data)",
            "method ActivateAction(in s action_name, in av parameter, in a{sv} platform_data)",
            "method Open(in as uris, in a{sv} platform_data)",
        ])
    }

    @Test("the Python sample app, written from dbus/io.waypost.Application1.xml, exports what it says")
    func application() async throws {
        let session = try await DesktopSession()
        defer { session.close() }
        let app = try await session.installApp(RoutingTests.contactsApp(scenes: []))
        try await session.start(app)
        let bus = try await session.connect()
        let owner = try #require(try await session.status(with: bus).processes.first?["owner"])
        let exported = try await Self.introspect(bus, BusName(owner), "/io/waypost/sample")
        let contract = try Self.contract("io.waypost.Application1.xml")
        // dbus-python names no arguments, so compare the signatures alone.
        #expect(exported.signatures(of: "io.waypost.Application1") == contract.signatures(of: "io.waypost.Application1"))
        #expect(contract.signatures(of: "io.waypost.Application1").count == 4)
    }

    static func introspect(_ bus: Connection, _ name: BusName, _ path: ObjectPath) async throws -> InterfaceTable {
        let reply = try await bus.call(
            destination: name, path: path, interface: "org.freedesktop.DBus.Introspectable", member: "Introspect")
        return try InterfaceTable(xml: Data(try reply.decode(String.self).utf8))
    }
}
