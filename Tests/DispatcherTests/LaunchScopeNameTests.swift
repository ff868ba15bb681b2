import Testing

@testable import Dispatcher

/// The scope a launched app is put in: systemd's desktop naming, its escaping (no I/O).
@Suite struct LaunchScopeNameTests {
    @Test func aScopeNamesTheLauncherTheAppAndThePid() {
        #expect(LaunchScopes.unitName(appID: "org.example.Shop", pid: 4242) == "app-waypost-org.example.Shop-4242.scope")
    }

    /// As `systemd-escape` prints them: a dash inside the id must not read as a separator.
    @Test(arguments: [
        ("firefox-esr", #"firefox\x2desr"#), (".hidden", #"\x2ehidden"#), ("kde4/okular", "kde4-okular"),
        ("café app", #"caf\xc3\xa9\x20app"#), (#"a\b"#, #"a\x5cb"#), ("a:b_c.d", "a:b_c.d"),
    ])
    func idsAreEscapedAsSystemdDoes(id: String, escaped: String) {
        #expect(LaunchScopes.escaped(id) == escaped)
    }

    @Test func anIdTooLongForAUnitNameLeavesOnlyThePid() {
        let long = String(repeating: "a", count: 250)
        #expect(LaunchScopes.unitName(appID: long, pid: 7) == "app-waypost-7.scope")
        let fits = String(repeating: "a", count: 200)
        #expect(LaunchScopes.unitName(appID: fits, pid: 7) == "app-waypost-\(fits)-7.scope")
    }
}
