import DBus
@testable import Desktop
@testable import Dispatcher
import Synchronization
import Testing
import WaypostContract

/// Starting an entry with a link, over values: the desktop (`DesktopAppsTests.Directory`) and a
/// launcher that records what it was asked (`ApplicationLauncher`).
@Suite("an entry started with a link")
struct LaunchTests {
    /// Records each launch; refuses the ids in `refusing` as GIO would (a missing program).
    final class Launches: ApplicationLauncher {
        let refusing: Set<String>
        let made = Mutex<[(id: String, uris: [String], token: String?)]>([])

        init(refusing: Set<String> = []) { self.refusing = refusing }

        func launch(_ entry: ApplicationEntry, uris: [String], platformData: LaunchPlatformData) throws(LaunchError) -> [Int32] {
            made.withLock { $0.append((entry.id, uris, platformData.activationToken)) }
            if refusing.contains(entry.id) {
                throw LaunchError(applicationID: entry.id, uris: uris, message: "Failed to execute child process “\(entry.exec ?? "")” (No such file or directory)")
            }
            return [4242]
        }
    }

    static let directory = DesktopAppsTests.Directory(installed: [
        DesktopAppsTests.entry("org.example.Legacy", schemes: ["legacy"]),
        DesktopAppsTests.entry("org.example.Broken", schemes: ["legacy"], program: "/nonexistent/broken"),
    ])

    @Test("the entry is started once with the link and the opener's activation token; the reason says so")
    func started() async throws {
        let launches = Launches()
        let how = try await Dispatcher.start(
            "org.example.Legacy", with: "legacy://x?y=1", LaunchPlatformData(activationToken: "token-7"),
            directory: Self.directory, launcher: launches)
        #expect(how == "it was started with the link")
        let made = launches.made.withLock { $0 }
        #expect(made.map(\.id) == ["org.example.Legacy"])
        #expect(made.first?.uris == ["legacy://x?y=1"])
        #expect(made.first?.token == "token-7")
    }

    @Test("an entry gone, or one whose launch fails: LaunchFailed naming the app and why, nothing else started")
    func failures() async {
        let launches = Launches(refusing: ["org.example.Broken"])
        do {
            _ = try await Dispatcher.start("org.example.Gone", with: "legacy://x", LaunchPlatformData(), directory: Self.directory, launcher: launches)
            Issue.record("a gone entry was started")
        } catch {
            guard case .launchFailed(app: "org.example.Gone", _) = error else { Issue.record("\(error)"); return }
            #expect(error.failure.errorName.rawValue == "io.waypost.Error.LaunchFailed")
        }
        #expect(launches.made.withLock { $0.isEmpty })
        do {
            _ = try await Dispatcher.start("org.example.Broken", with: "legacy://x", LaunchPlatformData(), directory: Self.directory, launcher: launches)
            Issue.record("a failed launch was reported started")
        } catch {
            guard case .launchFailed(app: "org.example.Broken", let reason) = error else { Issue.record("\(error)"); return }
            #expect(reason.contains("No such file or directory"), "\(reason)")
        }
        #expect(launches.made.withLock { $0.map(\.id) } == ["org.example.Broken"])
    }
}
