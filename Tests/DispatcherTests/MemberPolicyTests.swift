import DBus
@testable import Dispatcher
import Foundation
import Testing
import WaypostContract

/// Each member the daemon serves has its policy in dbus/*.xml (`io.waypost.Serving`,
/// `io.waypost.CallsInFlight`), generated onto its `Contract.Member`, which `MemberServing` carries
/// out; each member counts its own calls in flight. That the daemon exports each interface as its
/// file says is checked on a bus (ContractTests, DockMenuTests).
@Suite("policy at the member")
struct MemberPolicyTests {
    /// The interfaces the daemon serves, by their namespace in `Contract`, and their methods.
    static let served: [(contract: String, methods: [Contract.Member])] = [
        ("Dispatcher1", Contract.Dispatcher1.methods), ("SearchProvider2", Contract.SearchProvider2.methods),
        ("KRunner1", Contract.KRunner1.methods), ("Handoff1", Contract.Handoff1.methods),
        // What GIO openers call on a DBusActivatable entry, and each app's dock quicklist.
        ("FreedesktopApplication", Contract.FreedesktopApplication.methods), ("DBusMenu", Contract.DBusMenu.methods),
    ]

    @Test("every method the daemon serves carries its serving and budget as data; an app's members and signals carry none")
    func everyMemberHasItsPolicy() {
        for (contract, methods) in Self.served {
            #expect(!methods.isEmpty, "\(contract)")
            for method in methods { #expect(method.policy != nil, "\(contract).\(method.name)") }
        }
        #expect(Contract.Dispatcher1.methods.count > 30)
        #expect(Contract.Application1.members.allSatisfy { $0.policy == nil })
        #expect(Contract.Dispatcher1.signals.allSatisfy { $0.policy == nil })
        // Events and the shells' questions may come by the dozen; what an app says of itself, a few.
        #expect(Contract.Dispatcher1.open.policy == .init(serving: .delivers, callsInFlight: .many))
        #expect(Contract.SearchProvider2.activateResult.policy == .init(serving: .delivers, callsInFlight: .many))
        #expect(Contract.Dispatcher1.registerApplication.policy == .init(serving: .takesTurns, callsInFlight: .few))
        #expect(Contract.Dispatcher1.addScene.policy == .init(serving: .actsAsTheApp, callsInFlight: .few))
    }

    @Test("the daemon exports a member only through MemberServing, which carries its policy out")
    func oneWayToExport() throws {
        let sources = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Sources/Dispatcher")
        let files = (FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)?.allObjects as? [URL] ?? [])
            .filter { $0.pathExtension == "swift" }
        #expect(files.count > 40)
        let exporting = try files.filter { file in
            try String(contentsOf: file, encoding: .utf8).contains(/\.exported(AnsweringAtOnce)?\s*\{/)
        }.map(\.lastPathComponent)
        #expect(exporting == ["MemberServing.swift"])
    }

    @Test("each member counts its own calls in flight per caller and in all: over either Busy names it, who and the limit; others go on")
    func budgets() throws {
        let open = MemberCalls(Contract.Dispatcher1.open, limit: .many)
        let addScene = MemberCalls(Contract.Dispatcher1.addScene, limit: .few)
        let caller = Budgets.Caller.process(7), other = Budgets.Caller.app("org.example.Other")
        for _ in 0..<Contract.Member.CallsInFlight.many.share { try open.enter(caller) }
        #expect(throws: DispatchError.callsInFlight(member: "Open", caller: "process 7", limit: 32)) { try open.enter(caller) }
        #expect(DispatchError.callsInFlight(member: "Open", caller: "process 7", limit: 32).failure.errorName.rawValue == "io.waypost.Error.Busy")
        // Another member of the same caller, and the same member of another caller, go on.
        try addScene.enter(caller)
        try open.enter(other)
        open.leave(caller)
        try open.enter(caller)
        for _ in 1..<Contract.Member.CallsInFlight.few.share { try addScene.enter(caller) }
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
