import Browsers
import Desktop
import Planning
import Testing

/// The browsers' files parsed without I/O, browsers recognised by program name, and the arguments
/// each window needs, down to the `Exec=` line GIO is given.
struct BrowserProfilesTests {
    static let homes = BrowserHomes(home: "/home/u", configHome: "/home/u/.config")
    static let chromium = Browser(family: .chromium, program: "chromium", profileDirectories: ["/home/u/.config/chromium"])
    static let firefox = Browser(family: .firefox, program: "firefox-esr", profileDirectories: ["/home/u/.mozilla/firefox"])

    static let localState = """
        {"browser": {"enabled_labs_experiments": []},
         "profile": {"info_cache": {"Profile 1": {"name": "Work", "avatar_icon": "x"}, "Default": {"name": "Person 1"},
                                    "Profile 10": {"name": "Later"}, "Profile 2": {"name": ""}},
                     "last_used": "Profile 1", "profiles_order": ["Default", "Profile 1"]}}
        """

    static let profilesINI = """
        [Profile1]
        Name=personal
        IsRelative=1
        Path=Profiles/abcd1234.personal

        [Profile0]
        Name=Work Stuff
        IsRelative=1
        Path=Profiles/efgh5678.work
        Default=1

        [General]
        StartWithLastProfile=1
        Version=2

        [Install3B6073811A6ABF12]
        Default=Profiles/abcd1234.personal
        Locked=1
        """

    @Test func chromiumLocalStateListsProfilesInTheBrowsersOrderWithTheLastUsedAsDefault() throws {
        let found = try BrowserProfiles.chromium(Self.chromium, localState: Array(Self.localState.utf8), file: "Local State")
        #expect(found.profiles == [
            BrowserProfile(name: "Person 1", directory: "Default"),
            BrowserProfile(name: "Work", directory: "Profile 1", isDefault: true),
            BrowserProfile(name: "Profile 2", directory: "Profile 2"),
            BrowserProfile(name: "Later", directory: "Profile 10"),
        ])
        #expect(try found.profile(named: "Work").directory == "Profile 1")
        #expect(try found.profile(named: "work").directory == "Profile 1")
        #expect(try found.profile(named: "profile 10").name == "Later")
        #expect(try found.arguments(for: .profile("Work")) == ["--profile-directory=Profile 1"])
        #expect(try found.arguments(for: .privateWindow) == ["--incognito"])
        #expect(try found.arguments(for: .usual) == [])
    }

    @Test func aShownNameWinsOverADirectoryAndExactCaseOverAnyCase() throws {
        let state = #"{"profile": {"info_cache": {"Default": {"name": "Profile 1"}, "Profile 1": {"name": "work"}, "Profile 2": {"name": "Work"}}}}"#
        let found = try BrowserProfiles.chromium(Self.chromium, localState: Array(state.utf8), file: "Local State")
        #expect(try found.profile(named: "Profile 1").directory == "Default")
        #expect(try found.profile(named: "Work").directory == "Profile 2")
        #expect(try found.profile(named: "WORK").directory == "Profile 1")
        // No last_used: Chromium opens Default.
        #expect(found.profiles.filter(\.isDefault).map(\.directory) == ["Default"])
    }

    @Test func anUnknownProfileIsNamedWithTheKnownOnes() throws {
        let found = try BrowserProfiles.chromium(Self.chromium, localState: Array(Self.localState.utf8), file: "Local State")
        #expect(throws: BrowserProfileError.unknownProfile(
            browser: "chromium", profile: "Home", known: ["Person 1", "Work", "Profile 2", "Later"], source: "Local State")
        ) { try found.arguments(for: .profile("Home")) }
        let error = BrowserProfileError.unknownProfile(browser: "chromium", profile: "Home", known: ["Work"], source: "x")
        #expect(error.description == "chromium has no profile 'Home'; its profiles: 'Work'")
    }

    @Test func firefoxProfilesINIListsProfilesWithTheInstallationsDefault() throws {
        let found = try BrowserProfiles.firefox(Self.firefox, profilesINI: Array(Self.profilesINI.utf8), file: "profiles.ini")
        #expect(found.profiles == [
            BrowserProfile(name: "personal", directory: "Profiles/abcd1234.personal", isDefault: true),
            BrowserProfile(name: "Work Stuff", directory: "Profiles/efgh5678.work"),
        ])
        #expect(try found.arguments(for: .profile("personal")) == ["-P", "personal"])
        #expect(try found.arguments(for: .profile("work stuff")) == ["-P", "Work Stuff"])
        // By directory: the Path's last component; -P always takes the Name.
        #expect(try found.arguments(for: .profile("efgh5678.work")) == ["-P", "Work Stuff"])
        #expect(try found.arguments(for: .privateWindow) == ["--private-window"])
    }

    @Test func withoutAnInstallSectionTheDefaultIsTheMarkedProfile() throws {
        let text = "[Profile0]\nName=a\nPath=a.a\nDefault=1\n\n[Profile1]\nName=b\nPath=b.b\n[Profile2]\nName=no path\n"
        let found = try BrowserProfiles.firefox(Self.firefox, profilesINI: Array(text.utf8), file: "profiles.ini")
        #expect(found.profiles == [BrowserProfile(name: "a", directory: "a.a", isDefault: true), BrowserProfile(name: "b", directory: "b.b")])
    }

    @Test func malformedFilesGiveNamedErrors() {
        for bytes in [Array("{\"profile\": [1, 2]}".utf8), Array("not json".utf8), [0xFF, 0xFE], []] {
            #expect {
                _ = try BrowserProfiles.chromium(Self.chromium, localState: bytes, file: "/x/Local State")
            } throws: { error in
                guard case .malformed(let file, _) = error as? BrowserProfileError else { return false }
                return file == "/x/Local State"
            }
        }
        for text in ["Name=before any group\n", "[Profile0\nName=x\n", "[Profile0]\njust words\n"] {
            #expect {
                _ = try BrowserProfiles.firefox(Self.firefox, profilesINI: Array(text.utf8), file: "/x/profiles.ini")
            } throws: { error in
                guard case .malformed(let file, _) = error as? BrowserProfileError else { return false }
                return file == "/x/profiles.ini"
            }
        }
    }

    @Test func browsersAreRecognisedByProgramNameWithTheirProfileDirectories() {
        let chromium = Browser.recognise(programs: ["/usr/bin/chromium", "/usr/lib/chromium/chromium"], execArguments: ["/usr/bin/chromium", "%U"], homes: Self.homes)
        #expect(chromium == Browser(family: .chromium, program: "chromium", profileDirectories: ["/home/u/.config/chromium"]))
        let given = Browser.recognise(programs: ["/usr/bin/chromium"], execArguments: ["/usr/bin/chromium", "--user-data-dir=/tmp/a", "--user-data-dir=/tmp/b", "%U"], homes: Self.homes)
        #expect(given?.profileDirectories == ["/tmp/b"])
        #expect(Browser.recognise(programs: ["/opt/brave.com/brave/brave-browser"], execArguments: [], homes: Self.homes)?.profileDirectories
            == ["/home/u/.config/BraveSoftware/Brave-Browser"])
        #expect(Browser.recognise(programs: ["/usr/bin/google-chrome-beta"], execArguments: [], homes: Self.homes)?.profileDirectories
            == ["/home/u/.config/google-chrome-beta"])
        #expect(Browser.recognise(programs: ["/usr/bin/microsoft-edge-stable"], execArguments: [], homes: Self.homes)?.profileDirectories
            == ["/home/u/.config/microsoft-edge"])
        #expect(Browser.recognise(programs: ["sh", "/usr/lib/firefox-esr/firefox-esr"], execArguments: [], homes: Self.homes)
            == Browser(family: .firefox, program: "firefox-esr", profileDirectories: ["/home/u/.mozilla/firefox", "/home/u/.config/mozilla/firefox"]))
        #expect(Browser.recognise(programs: ["/usr/bin/gedit"], execArguments: [], homes: Self.homes) == nil)
    }

    @Test func addedArgumentsGoBeforeTheFieldCodeAndAreQuotedForExec() {
        #expect(ExecLine.inserting(["--profile-directory=Profile 1"], into: ["/usr/bin/chromium", "%U"])
            == #"/usr/bin/chromium "--profile-directory=Profile 1" %U"#)
        #expect(ExecLine.inserting(["--private-window"], into: ["firefox", "--new-window", "%u"]) == "firefox --new-window --private-window %u")
        #expect(ExecLine.inserting(["-P", "100% me"], into: ["firefox"]) == #"firefox -P "100%% me""#)
        // A shell wrapper passes them on in "$@"; its script is quoted back as it was meant.
        #expect(ExecLine.inserting(["--incognito"], into: ["sh", "-c", #"exec chromium "$@""#, "sh", "%U"])
            == #"sh -c "exec chromium \"\$@\"" sh --incognito %U"#)
        #expect(ExecLine.inserting(["-P", "x"], into: ["/usr/bin/flatpak", "run", "org.mozilla.firefox", "@@u", "%u", "@@"])
            == "/usr/bin/flatpak run org.mozilla.firefox -P x @@u %u @@")
    }
}
