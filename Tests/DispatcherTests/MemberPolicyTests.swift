import DBus
@testable import Dispatcher
import Foundation
import Testing
import WaypostContract

/// Each member the daemon serves declares, beside it in the export table, how it is served and its
/// budget of calls in flight; each member counts its own.
@Suite("policy at the member")
struct MemberPolicyTests {
    static let sources = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Sources/Dispatcher")
    static let contracts = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("dbus")

    /// Every Swift file of the Dispatcher module, in its folders too.
    static func sourceFiles() -> [URL] {
        let all = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)?.allObjects as? [URL] ?? []
        return all.filter { $0.pathExtension == "swift" }
    }

    /// `method(Members.open, .delivers, inFlight: .many)` in the export table, by interface (the
    /// `typealias Members = Contract.X` above it): member constant → its declaration.
    static func declarations() throws -> [String: [String: [String]]] {
        var found: [String: [String: [String]]] = [:]
        for file in sourceFiles() {
            let text = try String(contentsOf: file, encoding: .utf8)
            var interface: String?
            for line in text.split(separator: "\n") {
                if let alias = line.firstMatch(of: /typealias Members = Contract\.(\w+)/) { interface = String(alias.1) }
                for declared in line.matches(of: /method\(Members\.(\w+), \.(\w+), inFlight: \.(\w+)\)/) {
                    found[interface ?? "?", default: [:]][String(declared.1), default: []].append("\(declared.2) \(declared.3)")
                }
            }
        }
        return found
    }

    /// The methods an introspection file declares, as their constants in `WaypostContract` are named.
    static func methods(_ file: String, _ interface: String) throws -> Set<String> {
        let table = try InterfaceTable(xml: Data(contentsOf: contracts.appendingPathComponent(file)))
        return Set(table.members(of: interface).compactMap { line in
            guard let name = line.firstMatch(of: /^method (\w+)\(/)?.1 else { return nil }
            return name.prefix(1).lowercased() + name.dropFirst()
        })
    }

    @Test("every method of dbus/*.xml the daemon serves declares its serving and budget, once, and no member is exported without")
    func everyMemberDeclares() throws {
        let declared = try Self.declarations()
        let served: [(contract: String, methods: Set<String>)] = [
            ("Dispatcher1", try Self.methods("io.waypost.Dispatcher1.xml", Contract.Dispatcher1.interface.rawValue)),
            ("SearchProvider2", try Self.methods("org.gnome.Shell.SearchProvider2.xml", Contract.SearchProvider2.interface.rawValue)),
            ("KRunner1", try Self.methods("org.kde.krunner1.xml", Contract.KRunner1.interface.rawValue)),
            ("Handoff1", try Self.methods("io.waypost.Handoff1.xml", Contract.Handoff1.interface.rawValue)),
            // What GIO openers call on a DBusActivatable entry (the daemon's export is checked on a bus).
            ("FreedesktopApplication", ["activate", "activateAction", "open"]),
            // Each app's dock quicklist, as libdbusmenu's client calls it (served on a bus in DockMenuTests).
            ("DBusMenu", Set(Contract.DBusMenu.methods.map { $0.name.rawValue.prefix(1).lowercased() + $0.name.rawValue.dropFirst() })),
        ]
        // Not vacuous: the files were read.
        #expect(served[0].methods.count > 15 && served[0].methods.contains("registerApplication"))
        for (contract, methods) in served {
            let members = declared[contract] ?? [:]
            #expect(Set(members.keys) == methods, "\(contract): declared \(members.keys.sorted()), served \(methods.sorted())")
            for (member, declarations) in members {
                #expect(declarations.count == 1, "\(contract).\(member): \(declarations)")
            }
        }
        #expect(Set(declared.keys) == Set(served.map(\.contract)), "\(declared.keys.sorted())")
        // The only way to export a member is `method`, whose policy and budget have no default.
        let exports = try Self.sourceFiles().reduce(0) { count, file in
            let text = try String(contentsOf: file, encoding: .utf8)
            return count + text.matches(of: /\.exported\s*\{/).count
        }
        #expect(exports == 1)
        // Events and the shells' questions may come by the dozen; what an app says of itself, a few.
        #expect(declared["Dispatcher1"]?["open"] == ["delivers many"])
        #expect(declared["SearchProvider2"]?["activateResult"] == ["delivers many"])
        #expect(declared["Dispatcher1"]?["registerApplication"] == ["takesTurns few"])
        #expect(declared["Dispatcher1"]?["addScene"] == ["actsAsTheApp few"])
    }

    @Test("each member counts its own calls in flight per caller and in all: over either Busy names it, who and the limit; others go on")
    func budgets() throws {
        let open = MemberCalls(Contract.Dispatcher1.open, limit: .many)
        let addScene = MemberCalls(Contract.Dispatcher1.addScene, limit: .few)
        let caller = Budgets.Caller.process(7), other = Budgets.Caller.app("org.example.Other")
        for _ in 0..<Budgets.CallsInFlight.many.share { try open.enter(caller) }
        #expect(throws: DispatchError.callsInFlight(member: "Open", caller: "process 7", limit: 32)) { try open.enter(caller) }
        #expect(DispatchError.callsInFlight(member: "Open", caller: "process 7", limit: 32).failure.errorName.rawValue == "io.waypost.Error.Busy")
        // Another member of the same caller, and the same member of another caller, go on.
        try addScene.enter(caller)
        try open.enter(other)
        open.leave(caller)
        try open.enter(caller)
        for _ in 1..<Budgets.CallsInFlight.few.share { try addScene.enter(caller) }
        #expect(throws: DispatchError.callsInFlight(member: "AddScene", caller: "process 7", limit: 16)) { try addScene.enter(caller) }
        // However many callers, the member's total: the fourth share fills it, and nobody gets more.
        for _ in 1..<32 { try open.enter(other) }
        for _ in 0..<32 { try open.enter(.connection(":1.9")) }
        for _ in 0..<32 { try open.enter(.process(8)) }
        #expect(throws: DispatchError.callsInFlight(member: "Open", caller: "every caller together", limit: 128)) {
            try open.enter(.process(9))
        }
        open.leave(.process(8))
        try open.enter(.process(9))
    }
}
