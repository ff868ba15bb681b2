import DBus
import Foundation
import Glibc
import TestSupport
import Testing
import WaypostContract

/// The desktops' searches over saved activities, called as GNOME Shell and KRunner call them, at
/// the bus name and path read from the files `waypost install` wrote, over peer connections
/// (`PeerDesktop`); `waypost doctor`'s view of them is DispatcherIdentityTests'.
@Suite("desktop search of saved activities", .serialized)
struct SearchProviderTests {
    static let show = ActivitiesOverTheBusTests.show

    /// A key file's `key=value` lines.
    static func keys(_ path: String) throws -> [String: String] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        return text.split(separator: "\n").reduce(into: [:]) { keys, line in
            let parts = line.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { keys[String(parts[0])] = String(parts[1]) }
        }
    }

    @Test("the daemon exports both search interfaces exactly as dbus/ declares them, and WaypostContract states the same")
    func contract() async throws {
        let gnome = try ContractTests.contract("org.gnome.Shell.SearchProvider2.xml")
        let krunner = try ContractTests.contract("org.kde.krunner1.xml")
        #expect(ContractTests.lines(Contract.SearchProvider2.members) == gnome.membersWithKeys(of: "org.gnome.Shell.SearchProvider2"))
        #expect(ContractTests.lines(Contract.KRunner1.members) == krunner.membersWithKeys(of: "org.kde.krunner1"))
        #expect(gnome.nodePath == Contract.SearchProvider2.objectPath.rawValue)
        #expect(krunner.nodePath == Contract.KRunner1.objectPath.rawValue)
        #expect(krunner.members(of: "org.kde.krunner1").count == 6)
        let session = try await PeerDesktop()
        defer { session.close() }
        let bus = try await session.connect()
        let exportedGnome = try await ContractTests.introspect(bus, Contract.busName, Contract.SearchProvider2.objectPath)
        #expect(exportedGnome.members(of: "org.gnome.Shell.SearchProvider2") == gnome.members(of: "org.gnome.Shell.SearchProvider2"))
        let exportedKRunner = try await ContractTests.introspect(bus, Contract.busName, Contract.KRunner1.objectPath)
        #expect(exportedKRunner.members(of: "org.kde.krunner1") == krunner.members(of: "org.kde.krunner1"))
    }

    @Test("GNOME Shell's calls: results ranked, narrowed, described with the app's name and icon, and activated into the right window")
    func gnomeShell() async throws {
        let session = try await PeerDesktop()
        defer { session.close() }
        let app = try await InProcessApp(session, id: "org.example.Contacts", name: "Contacts", activityTypes: [Self.show])
        try await app.openScene("ada-window", preferring: ["contact/1"])
        try await app.openScene("grace-window", preferring: ["contact/2"])
        try await app.publish("ada-window", Self.show, ActivitiesOverTheBusTests.activity(title: "Ada Lovelace", target: "contact/1", keywords: ["mathematician"]))
        try await app.publish("grace-window", Self.show, ActivitiesOverTheBusTests.activity(title: "Grace Hopper", target: "contact/2", keywords: ["admiral"]))
        // Called where the provider file `waypost install` writes tells GNOME Shell to call.
        let prefix = session.root.appendingPathComponent("system").path
        #expect(try await session.waypost(["install", "--system", "--prefix", prefix]).status == 0)
        let gnome = try Self.keys(prefix + "/gnome-shell/search-providers/io.waypost.Dispatcher.search-provider.ini")
        let entry = try Self.keys(prefix + "/applications/" + (gnome["DesktopId"] ?? "?"))
        #expect(entry["NoDisplay"] == nil && entry["Type"] == "Application")
        #expect(gnome["Version"] == "2")
        let shell = try await session.connect()
        let (name, path) = (try BusName(try #require(gnome["BusName"])), try ObjectPath(try #require(gnome["ObjectPath"])))
        func call<each Argument: BusValue>(_ member: Contract.Member, _ arguments: repeat each Argument) async throws -> Message {
            try await shell.call(
                destination: name, path: path, interface: Contract.SearchProvider2.interface, member: member.name, repeat each arguments)
        }

        let both = try await call(Contract.SearchProvider2.getInitialResultSet, ["a"]).decode([String].self)
        #expect(both.count == 2)
        let grace = try await call(Contract.SearchProvider2.getSubsearchResultSet, both, ["adm"]).decode([String].self)
        #expect(grace.count == 1)
        #expect(try await call(Contract.SearchProvider2.getInitialResultSet, ["hopper", "x'); drop"]).decode([String].self).isEmpty)

        let metas = try await call(Contract.SearchProvider2.getResultMetas, grace).decode([[String: Variant]].self)
        #expect(metas.first?["name"] == Variant("Grace Hopper"))
        #expect(metas.first?["description"] == Variant("Contacts"))
        #expect(metas.first?["gicon"] == Variant("org.example.Contacts"))

        _ = try await call(Contract.SearchProvider2.activateResult, grace[0], ["adm"], UInt32(1234))
        let continued = try await app.next()
        #expect(continued.scene == "grace-window")
        #expect(continued.activity["title"] == Variant("Grace Hopper"))
        #expect(continued.platformData["desktop-startup-id"] == Variant("waypost-search_TIME1234"))
        _ = try await call(Contract.SearchProvider2.launchSearch, ["adm"], UInt32(1234))

        // With no window open for it, the result opens a new one.
        try await app.call(Contract.Dispatcher1.removeScene, "ada-window")
        try await app.call(Contract.Dispatcher1.removeScene, "grace-window")
        _ = try await call(Contract.SearchProvider2.activateResult, grace[0], ["adm"], UInt32(1235))
        let created = try await app.next()
        #expect(created.member == "CreateScene")
        #expect(created.activity["target-content-identifier"] == Variant("contact/2"))

        #expect(try await session.waypost(["uninstall", "--system", "--prefix", prefix]).status == 0)
        #expect(!FileManager.default.fileExists(atPath: prefix + "/gnome-shell/search-providers/io.waypost.Dispatcher.search-provider.ini"))
        #expect(!FileManager.default.fileExists(atPath: prefix + "/krunner/dbusplugins/io.waypost.Dispatcher.desktop"))
    }

    @Test("KRunner's calls: Match, then SetActivationToken and Run continue the match with that token")
    func krunner() async throws {
        let session = try await PeerDesktop()
        defer { session.close() }
        let app = try await InProcessApp(session, id: "org.example.Contacts", name: "Contacts", activityTypes: [Self.show])
        try await app.openScene("ada-window", preferring: ["contact/1"])
        try await app.openScene("other-window")
        try await app.publish("ada-window", Self.show, ActivitiesOverTheBusTests.activity(title: "Ada Lovelace", target: "contact/1"))
        // Called where the plugin file `waypost install` writes tells KRunner to call.
        let prefix = session.root.appendingPathComponent("system").path
        #expect(try await session.waypost(["install", "--system", "--prefix", prefix]).status == 0)
        let plugin = try Self.keys(prefix + "/krunner/dbusplugins/io.waypost.Dispatcher.desktop")
        #expect(plugin["X-Plasma-API"] == "DBus2")
        let runner = try await session.connect()
        let name = try BusName(try #require(plugin["X-Plasma-DBusRunner-Service"]))
        let path = try ObjectPath(try #require(plugin["X-Plasma-DBusRunner-Path"]))
        func call<each Argument: BusValue>(_ member: Contract.Member, _ arguments: repeat each Argument) async throws -> Message {
            try await runner.call(destination: name, path: path, interface: Contract.KRunner1.interface, member: member.name, repeat each arguments)
        }

        #expect(try await call(Contract.KRunner1.config).decode([String: Variant].self).isEmpty)
        #expect(try await call(Contract.KRunner1.actions).decode([Structure<String, String, String>].self).isEmpty)
        let matches = try await call(Contract.KRunner1.match, "ada").decode([Structure<String, String, String, Int32, Double, [String: Variant]>].self)
        let ada = try #require(matches.first)
        #expect((ada.fields.1, ada.fields.2, ada.fields.3) == ("Ada Lovelace", "org.example.Contacts", 30))
        #expect(ada.fields.5["subtext"] == Variant("Contacts"))
        _ = try await call(Contract.KRunner1.setActivationToken, "wayland-token-7")
        _ = try await call(Contract.KRunner1.run, ada.fields.0, "")
        let continued = try await app.next()
        #expect(continued.scene == "ada-window")
        #expect(continued.platformData["activation-token"] == Variant("wayland-token-7"))
        _ = try await call(Contract.KRunner1.teardown)
    }

    @Test("GNOME Shell narrowing past the first 50 results, or after a cancelled call passed no previous results, still finds the activity")
    func narrowing() async throws {
        let session = try await PeerDesktop()
        defer { session.close() }
        let app = try await InProcessApp(session, id: "org.example.Recipes", name: "Recipes", activityTypes: [Self.show])
        try await app.openScene("r1")
        // The oldest, and the longest title: last of the 63 that match "ice".
        try await app.publish("r1", Self.show, ActivitiesOverTheBusTests.activity(title: "Ice cream medley", target: "recipe/0"))
        for n in 1...62 { try await app.publish("r1", Self.show, ActivitiesOverTheBusTests.activity(title: "Ice \(n)", target: "recipe/\(n)")) }
        let bus = try await session.connect()
        let medley = try #require(try await session.search(bus, ["medley"]).first?.id)
        func call(_ member: Contract.Member, _ arguments: [String]...) async throws -> [String] {
            let (path, interface) = (Contract.SearchProvider2.objectPath, Contract.SearchProvider2.interface)
            if arguments.count == 1 {
                return try await bus.call(destination: Contract.busName, path: path, interface: interface, member: member.name, arguments[0])
                    .decode([String].self)
            }
            return try await bus.call(destination: Contract.busName, path: path, interface: interface, member: member.name, arguments[0], arguments[1])
                .decode([String].self)
        }

        // "ice", a pause: the first 50 results, without the medley.
        let initial = try await call(Contract.SearchProvider2.getInitialResultSet, ["ice"])
        #expect(initial.count == 50)
        #expect(!initial.contains(medley))
        // Then " cream med": narrowed from those, it must still be found.
        #expect(try await call(Contract.SearchProvider2.getSubsearchResultSet, initial, ["ice", "cream", "med"]) == [medley])
        // After a cancelled call GNOME 43 passes no previous results: the search goes on.
        #expect(try await call(Contract.SearchProvider2.getSubsearchResultSet, [], ["ice", "cream"]) == [medley])
        #expect(try await call(Contract.SearchProvider2.getSubsearchResultSet, [], ["ice"]).count == 50)
    }

    @Test("a call carrying more result ids than a screenful is refused before any is looked up; up to the cap each is answered")
    func identifiersPerCall() async throws {
        let session = try await PeerDesktop()
        defer { session.close() }
        let app = try await InProcessApp(session, id: "org.example.Contacts", name: "Contacts", activityTypes: [Self.show])
        try await app.openScene("s1")
        try await app.publish("s1", Self.show, ActivitiesOverTheBusTests.activity(title: "Ada Lovelace", target: "contact/1"))
        let stranger = try await session.connect()
        let id = try #require(try await session.search(stranger, ["ada"]).first?.id)
        let cap = Contract.SearchProvider2.identifiersPerCall
        #expect(cap == 100)
        func metas(_ identifiers: [String]) async throws -> [[String: Variant]] {
            try await stranger.call(
                destination: Contract.busName, path: Contract.SearchProvider2.objectPath, interface: Contract.SearchProvider2.interface,
                member: Contract.SearchProvider2.getResultMetas.name, identifiers).decode([[String: Variant]].self)
        }
        #expect(try await metas(Array(repeating: id, count: cap)).count == cap)
        // 50,000 copies of one id cost +641 MB a call when each was looked up.
        for count in [cap + 1, 50_000] {
            #expect(await ActivitiesOverTheBusTests.errorName { _ = try await metas(Array(repeating: id, count: count)) }
                == "io.waypost.Error.InvalidArgument")
        }
        #expect(await ActivitiesOverTheBusTests.errorName {
            _ = try await stranger.call(
                destination: Contract.busName, path: Contract.SearchProvider2.objectPath, interface: Contract.SearchProvider2.interface,
                member: Contract.SearchProvider2.getSubsearchResultSet.name, Array(repeating: id, count: 50_000), ["ada"])
        } == "io.waypost.Error.InvalidArgument")
        // The daemon goes on answering.
        #expect(try await metas([id]).first?["name"] == Variant("Ada Lovelace"))
    }

    @Test("a search result of an app that is not running starts it, and the activity reaches its restored window")
    func notRunning() async throws {
        let session = try await PeerDesktop()
        defer { session.close() }
        let app = try await session.installApp(SampleApp(
            "org.example.Contacts", schemes: [], activityTypes: [Self.show], announceReady: true,
            declarations: [("contacts", ["kind": "window-group"])], scenes: [("c1", "contacts", [([], ["*"])])]))
        let first = try await session.start(app)
        let bus = try await session.connect()
        try await session.app(app.id).control(
            "Publish", ["c1", Self.show], modifiers: [], activity: ActivitiesOverTheBusTests.activity(title: "Ada Lovelace", target: "contact/1"))
        session.exit(first)
        try await waitUntil("the dispatcher forgot the app that exited", context: session.busLog) {
            try await session.status(with: bus).processes.isEmpty
        }
        func call<each Argument: BusValue>(_ member: Contract.Member, _ arguments: repeat each Argument) async throws -> Message {
            try await bus.call(
                destination: Contract.busName, path: Contract.SearchProvider2.objectPath, interface: Contract.SearchProvider2.interface,
                member: member.name, repeat each arguments)
        }
        let ids = try await call(Contract.SearchProvider2.getInitialResultSet, ["lovelace"]).decode([String].self)
        #expect(ids.count == 1)
        _ = try await call(Contract.SearchProvider2.activateResult, ids[0], ["lovelace"], UInt32(99))
        let received = session.received(app.id)
        #expect(received.count == 1)
        #expect(received.first?["event"] as? String == "ContinueUserActivity")
        #expect(received.first?["scene"] as? String == "c1")
        #expect((received.first?["activity"] as? [String: Any])?["title"] as? String == "Ada Lovelace")
        #expect(received.first?["pid"] as? Int != Int(first))
    }
}
