import Desktop
@testable import Dispatcher
import ExternalEvents
import Planning
import Testing

/// The desktop as a value (`ApplicationDirectory`), the three choosers the planner reads over it:
/// the scheme's fallback handler, the browser, the file type's app, each with its guard.
@Suite("the desktop as the planner reads it")
struct DesktopAppsTests {
    /// Entries by id, the user's order per scheme, the defaults recorded before `waypost install`.
    struct Directory: ApplicationDirectory {
        var installed: [ApplicationEntry] = []
        var recorded: [String: String] = [:]
        /// GIO's pick, per scheme or content type.
        var desktopChoice: [String: String] = [:]

        func handlers(forScheme scheme: String) throws(CatalogError) -> [ApplicationEntry] {
            try entries(forScheme: scheme).filter(\.participates)
        }
        func entries(forScheme scheme: String) throws(CatalogError) -> [ApplicationEntry] {
            guard scheme.first?.isLetter == true else { throw .invalidScheme(scheme) }
            return installed.filter { $0.declares(scheme: scheme) }
        }
        func participatingEntries() -> [ApplicationEntry] { installed.filter(\.participates) }
        func applications(forActivityType activityType: String) -> [ApplicationEntry] {
            installed.filter { $0.participates && $0.activityTypes.contains(activityType) }
        }
        func chosenApplicationID(forActivityType activityType: String) -> String? { nil }
        func entry(id: String) throws(CatalogError) -> ApplicationEntry {
            guard let entry = installed.first(where: { $0.id == id }) else { throw .notInstalled(applicationID: id) }
            return entry
        }
        func fallbackHandler(forScheme scheme: String, excluding excludedID: String?) throws(CatalogError) -> ApplicationEntry? {
            desktopChoice[scheme].flatMap { id in id == excludedID ? nil : try? entry(id: id) }
        }
        func previousDefault(forType contentType: String, excluding excludedID: String?) -> ApplicationEntry? {
            recorded[contentType].flatMap { id in id == excludedID ? nil : try? entry(id: id) }
        }
        func installedPrograms() -> InstalledPrograms { InstalledPrograms([:]) }
        func fallbackHandler(forContentType contentType: String, excluding excludedID: String?) -> ApplicationEntry? {
            desktopChoice[contentType].flatMap { id in id == excludedID ? nil : try? entry(id: id) }
        }
        /// No actions: the planner's choosers never read them.
        func shortcut(appID: String, action: String) throws(ShortcutLookupError) -> DesktopShortcut {
            throw .unlisted(action: action, app: appID, listed: [])
        }
    }

    static let own = "io.waypost.Dispatcher"

    static func entry(_ id: String, participates: Bool = false, schemes: [String] = [], program: String = "/usr/bin/app") -> ApplicationEntry {
        ApplicationEntry(
            id: id, filePath: "/apps/\(id).desktop", name: id, participates: participates, schemes: schemes, contentTypes: [],
            activityTypes: [], isDBusActivatable: false, startupNotify: false, exec: program, tryExec: nil, executablePath: program)
    }

    func apps(_ directory: Directory) -> DesktopApps {
        DesktopApps(directory: directory, contentTypes: nil, ownID: Self.own, ownProgram: "/opt/waypost/bin/waypost")
    }

    @Test("the browser: the recorded one unless it hands links back, else the first https handler that does not")
    func browser() throws {
        var directory = Directory(installed: [
            Self.entry(Self.own, schemes: ["https"], program: "/opt/waypost/bin/waypost"),
            Self.entry("xdg", schemes: ["https"], program: "/usr/bin/xdg-open"),
            Self.entry("firefox", schemes: ["https"]),
            Self.entry("chromium", schemes: ["https"]),
        ])
        directory.recorded["x-scheme-handler/https"] = "chromium"
        #expect(try apps(directory).browser(forScheme: "https")?.id == "chromium")
        directory.recorded["x-scheme-handler/https"] = "xdg"
        #expect(try apps(directory).browser(forScheme: "https")?.id == "firefox")
        directory.installed.removeAll { $0.id == "firefox" || $0.id == "chromium" }
        #expect(try apps(directory).browser(forScheme: "https") == nil)
        #expect(throws: CatalogFailure.self) { try apps(directory).browser(forScheme: "1nvalid") }
    }

    @Test("the fallback handler: the recorded default unless it takes part, else the desktop's choice, never the dispatcher")
    func fallback() throws {
        var directory = Directory(installed: [
            Self.entry("old", schemes: ["zoommtg"]), Self.entry("joined", participates: true, schemes: ["zoommtg"]),
            Self.entry(Self.own, schemes: ["zoommtg"]),
        ])
        directory.recorded["x-scheme-handler/zoommtg"] = "joined"
        directory.desktopChoice["zoommtg"] = Self.own
        #expect(try apps(directory).fallbackHandler(forScheme: "zoommtg") == nil)
        directory.desktopChoice["zoommtg"] = "old"
        #expect(try apps(directory).fallbackHandler(forScheme: "zoommtg")?.id == "old")
        directory.recorded["x-scheme-handler/zoommtg"] = "old"
        directory.desktopChoice["zoommtg"] = nil
        #expect(try apps(directory).fallbackHandler(forScheme: "zoommtg")?.id == "old")
    }

    @Test("the file type's app: the recorded default (taking part or not), else the desktop's choice")
    func document() {
        var directory = Directory(installed: [Self.entry("viewer"), Self.entry("notes", participates: true)])
        directory.desktopChoice["text/plain"] = "viewer"
        #expect(apps(directory).documentHandler(forType: "text/plain") == InstalledApp(id: "viewer", participates: false))
        directory.recorded["text/plain"] = "notes"
        #expect(apps(directory).documentHandler(forType: "text/plain") == InstalledApp(id: "notes", participates: true))
        #expect(apps(directory).documentHandler(forType: "image/png") == nil)
    }

    @Test("an entry a rule names is no destination when it would hand the link back")
    func namedEntry() {
        let directory = Directory(installed: [Self.entry("opener", program: "/usr/bin/gio"), Self.entry("zoom")])
        #expect(apps(directory).entry(id: "opener") == nil)
        #expect(apps(directory).entry(id: "zoom")?.id == "zoom")
        #expect(apps(directory).entry(id: "gone") == nil)
    }
}
