import DBus
import ExternalEvents
import Foundation
import Testing
import WaypostContract

/// The dictionaries' codecs generated from the XML's codec words (`required`, `default=…`,
/// `omit-default`, `lenient`, `error-name`, `io.waypost.Element`, `io.waypost.Struct`): what the
/// generator refuses, and what the generated Swift reads and writes. No bus.
@Suite("the codecs generated from dbus/")
struct GeneratedCodecTests {
    static func argument(_ annotations: String, type: String = "a{sv}") -> String {
        GeneratedContractTests.interface("""
            <method name="Get"><arg name="a" type="\(type)"><annotation name="io.waypost.Dictionary" value="Options"/>\(annotations)</arg></method>
        """)
    }

    @Test(
        "a codec the XML cannot describe faithfully is refused, naming the file and what in it",
        arguments: [
            ("a codec word no one knows", argument(#"<annotation name="io.waypost.Key" value="full b sometimes"/>"#), "\"sometimes\" is no codec word"),
            ("a default of another type", argument(#"<annotation name="io.waypost.Key" value="full b default=empty"/>"#), "default=empty does not fit b"),
            ("omitted at a default it has not", argument(#"<annotation name="io.waypost.Key" value="name s omit-default"/>"#), "omit-default needs default="),
            ("required and a default", argument(#"<annotation name="io.waypost.Key" value="name s required default=empty"/>"#), "is no codec word"),
            ("an error name that is no string", argument(#"<annotation name="io.waypost.Key" value="full b error-name"/>"#), "error-name is for a string"),
            ("one key's codec two ways", GeneratedContractTests.interface("""
                <method name="Get"><arg name="a" type="a{sv}"><annotation name="io.waypost.Dictionary" value="Options"/><annotation name="io.waypost.Key" value="full b required"/></arg></method>
                <method name="Put"><arg name="b" type="a{sv}"><annotation name="io.waypost.Dictionary" value="Options"/><annotation name="io.waypost.Key" value="full b"/></arg></method>
            """), "key full is \"b required\" in"),
            ("elements of a type no one declares", argument("""
                <annotation name="io.waypost.Key" value="pairs a(ss)"/><annotation name="io.waypost.Element" value="pairs: Pair"/>
            """), "Pair is no dictionary or io.waypost.Struct here"),
            ("a structure of other fields than its elements'", argument("""
                <annotation name="io.waypost.Key" value="pairs a(ss)"/><annotation name="io.waypost.Struct" value="Pair: left middle right"/><annotation name="io.waypost.Element" value="pairs: Pair"/>
            """), "is no structure of 3 fields"),
            ("elements of a key that is no array", argument("""
                <annotation name="io.waypost.Key" value="pair (ss)"/><annotation name="io.waypost.Struct" value="Pair: left right"/><annotation name="io.waypost.Element" value="pair: Pair"/>
            """), "io.waypost.Element is for an array"),
        ])
    func refusals(_ what: String, _ xml: String, _ said: String) async throws {
        let source = try GeneratedContractTests.scratch(), output = try GeneratedContractTests.scratch()
        defer { for directory in [source, output] { try? FileManager.default.removeItem(at: directory) } }
        try Data(xml.utf8).write(to: source.appendingPathComponent("org.example.Thing1.xml"))
        let run = try await GeneratedContractTests.generate(source, into: output)
        #expect(run.status == 1, "\(what)")
        #expect(run.errors.contains("org.example.Thing1.xml") && run.errors.contains(said), "\(what): \(run.errors)")
    }

    @Test("a required key that is missing, a value of another type, or one outside its set is refused by name")
    func refusedValues() throws {
        #expect(throws: Contract.KeyError.missing(keys: ["title"])) { try Contract.NotificationContent(["body": .string("b")]) }
        #expect(throws: Contract.KeyError.missing(keys: ["notification-action"])) {
            try Contract.NotificationResponse(["notification-id": .string("n")])
        }
        #expect(throws: Contract.KeyError.wrongType(key: "title", expected: "s", found: "b")) {
            try Contract.ShortcutItem(["type": .string("t"), "title": .boolean(true)])
        }
        #expect(throws: Contract.KeyError.unexpectedValue(key: "kind", value: "tab-group", allowed: ["window-group", "document-group"])) {
            try Contract.Declaration(Structure(("main", ["kind": .string("tab-group")])))
        }
        #expect(throws: Contract.KeyError.self) { try Contract.RoutingOutcome(["action": .string("teleport")]) }
        #expect(throws: Contract.KeyError.self) { try Contract.RoutingOutcome(["error": .string("io.waypost.Error.NoSuchThing")]) }
        #expect(throws: Contract.KeyError.self) { try Contract.RoutingOutcome(["steps": Variant([["steps": Variant([[String: Variant]]())]])]) }
        #expect(try Contract.RoutingOutcome(["error": .string("io.waypost.Error.Busy")]).error == .busy)
    }

    @Test("an absent key reads as its default; a lenient key of another type reads as absent")
    func defaults() throws {
        let activity = try Contract.ActivityDetails([:])
        #expect(activity.eligibleForHandoff && !activity.eligibleForSearch && activity.keywords.isEmpty && activity.userInfo.isEmpty)
        #expect(activity.title == nil && activity.expirationDate == nil)
        #expect(try Contract.RegistrationOptions([:]) == Contract.RegistrationOptions(singleScene: false, announcesReady: false))
        let content = try Contract.NotificationContent(["title": .string("t")])
        #expect(content.body == "" && content.icon == "" && content.buttons.isEmpty && content.targetContentIdentifier == nil)
        let platform = Contract.PlatformData(["activation-token": .boolean(true), "desktop-startup-id": .string("id")])
        #expect(platform.activationToken == nil && platform.desktopStartupID == "id")
    }

    @Test("a key is left out at its default only where the XML says omit-default; elements travel as their type")
    func omission() throws {
        #expect(Contract.ActivityDetails().variants.isEmpty)
        #expect(Contract.ActivityDetails(eligibleForSearch: true, eligibleForHandoff: false).variants
            == ["eligible-for-search": .boolean(true), "eligible-for-handoff": .boolean(false)])
        #expect(Contract.NotificationContent(title: "t").variants == ["title": .string("t")])
        // No omit-default: an option travels when false.
        #expect(Contract.RegistrationOptions().variants == ["single-scene": .boolean(false), "announces-ready": .boolean(false)])
        #expect(Contract.MonitorOptions().variants == ["full-uris": .boolean(false)])
        // The declaration's rule on top of its codec: a document group's content types always, a window group's never.
        #expect(Contract.Declaration(id: "d", kind: .documentGroup).structure.fields.1[Contract.Declaration.Keys.contentTypes.name] != nil)
        #expect(Contract.Declaration(id: "w", kind: .windowGroup, contentTypes: ["text/plain"]).structure.fields.1 == ["kind": .string("window-group")])
        #expect(try Contract.Declaration(Structure(("w", ["kind": .string("window-group"), "content-types": .boolean(true)]))).contentTypes == [])

        let buttons = Contract.NotificationContent(title: "t", buttons: [.init(action: "open", label: "Open")])
        #expect(buttons.variants["buttons"]?.signature == "a(ss)")
        #expect(try Contract.NotificationContent(buttons.variants) == buttons)
        let outcome = Contract.RoutingOutcome(
            action: .deliver, appID: "a", sceneID: "s", declarationID: "d", rule: .preferring, reason: "r", error: .busy,
            micros: 1, opener: "o", token: true, steps: [Contract.RoutingOutcome(action: .launch)])
        #expect(outcome.properties.entries.map(\.key) == [
            "action", "app-id", "scene-id", "declaration-id", "rule", "reason", "error", "micros", "opener", "token", "steps",
        ])
        #expect(outcome.variants["error"] == .string("io.waypost.Error.Busy"))
        #expect(try Contract.RoutingOutcome(outcome.variants) == outcome)
    }
}
