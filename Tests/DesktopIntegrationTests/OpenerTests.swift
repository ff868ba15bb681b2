import DBus
import Foundation
import Testing
import TestSupport

/// Who opened a link, end to end: the shop app opens its own domain's link through `gio open`,
/// `xdg-open` (generic path: a shell, then `waypost open`), `waypost open` and GIO in its own process;
/// each time the dispatcher finds the app behind the caller, and the self-loop guard sends the page to
/// the browser. The same link from elsewhere opens in the app, and `waypost monitor` names the opener.
@Suite struct OpenerTests {
    /// Asks the running sample app `id` to do something through its test interface.
    func control(_ desktop: ThrowawayDesktop, _ id: String, _ member: MemberName, _ body: (Connection, BusName) async throws -> Void) async throws {
        let bus = try await Connection(address: desktop.address)
        let status = try await bus.call(
            destination: "io.waypost.Dispatcher", path: "/io/waypost/Dispatcher", interface: "io.waypost.Dispatcher1", member: "Status")
        let (processes, _) = try status.decode([[String: Variant]].self, [[String: Variant]].self)
        let process = try #require(processes.first { (try? $0["app-id"]?.decode(as: String.self)) == id })
        let owner = try #require(try process["owner"]?.decode(as: String.self))
        try await body(bus, try BusName(owner))
    }

    func openedInApp(_ desktop: ThrowawayDesktop) -> [String] {
        desktop.received("org.example.Shop").filter { $0["event"] as? String == "OpenURL" }.compactMap { $0["uri"] as? String }
    }

    @Test func anAppOpeningItsOwnLinkSendsItToTheBrowserWhicheverWayItOpensIt() async throws {
        let desktop = try await ThrowawayDesktop()
        defer { desktop.close() }
        try await UniversalLinkTests().installShop(desktop, running: true)
        let monitor = try await ChildProcess.start(ThrowawayDesktop.waypost, ["monitor", "--count", "5"], environment: desktop.environment)
        #expect(try await monitor.nextLine("waypost monitor watches")?.hasPrefix("watching") == true)

        let link = "https://shop.example/product/1"
        let ways: [([String], [String: String])] = [
            (["/usr/bin/gio", "open", link], [:]),
            (["/usr/bin/xdg-open", link], ["DISPLAY": ":99", "XDG_CURRENT_DESKTOP": ""]),
            ([ThrowawayDesktop.waypost, "open", link], [:]),
        ]
        // Each way, the plan for the shop as opener (the browser) is what Open does.
        for (argv, environment) in ways {
            try await desktop.openAsPlanned(link, opener: "org.example.Shop") {
                try await control(desktop, "org.example.Shop", "Run") { bus, owner in
                    _ = try await bus.call(destination: owner, path: "/io/waypost/sample", interface: "io.waypost.test.Control",
                                           member: "Run", argv, environment)
                }
            }
        }
        try await desktop.openAsPlanned(link, opener: "org.example.Shop") {
            try await control(desktop, "org.example.Shop", "OpenInProcess") { bus, owner in
                _ = try await bus.call(destination: owner, path: "/io/waypost/sample", interface: "io.waypost.test.Control",
                                       member: "OpenInProcess", link)
            }
        }
        try await waitUntil("the browser has the four links", context: desktop.busLog) { desktop.plainLines("org.example.Browser").count == 4 }
        #expect(desktop.plainLines("org.example.Browser") == Array(repeating: link, count: 4))
        #expect(openedInApp(desktop).isEmpty, "the app never got its own link back")

        // The same link opened by something that is not the app (this test's gio): the app has it.
        try await UniversalLinkTests().gioOpens(desktop, link)
        #expect(openedInApp(desktop) == [link])

        var lines: [String] = []
        while lines.count < 5, let line = try await monitor.nextLine("waypost monitor's next line") { lines.append(line) }
        #expect(lines.prefix(4).allSatisfy { $0.hasSuffix("(opened by org.example.Shop)") && $0.contains("org.example.Browser") }, "\(lines)")
        #expect(lines.last?.contains("→ org.example.Shop") == true && lines.last?.hasSuffix("(opened by process gio)") == true, "\(lines)")

        // explain says the same, given the opener.
        let explained = try await desktop.waypost("explain", "--format", "text", "--opener", "org.example.Shop", link)
        #expect(explained.output.contains("org.example.Shop opened it itself"), "\(explained.output)\(explained.errors)")
        #expect(explained.output.contains("opener:"), "\(explained.output)")
    }
}
