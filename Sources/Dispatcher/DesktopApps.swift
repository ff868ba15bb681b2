public import Desktop
import ExternalEvents
import Planning

/// The desktop as the planner reads it, from the dispatcher's directory: which entries handle
/// what, never the dispatcher itself nor an entry that would hand a link straight back to it.
struct DesktopApps: InstalledApps {
    let directory: any ApplicationDirectory
    let contentTypes: (any ContentTypeResolving)?
    let ownID: String
    let ownProgram: String?

    func handlers(forScheme scheme: String) throws(CatalogFailure) -> [InstalledApp] {
        do { return try directory.handlers(forScheme: scheme).map(InstalledApp.init) } catch { throw CatalogFailure(error.description) }
    }

    /// The scheme's default from before `waypost install` (the user chose it), else GIO's choice;
    /// never a participating app or the dispatcher itself.
    func fallbackHandler(forScheme scheme: String) throws(CatalogFailure) -> InstalledApp? {
        if let previous = directory.previousDefault(forType: "x-scheme-handler/" + scheme, excluding: ownID), !previous.participates {
            return InstalledApp(previous)
        }
        do { return try directory.fallbackHandler(forScheme: scheme, excluding: ownID).map(InstalledApp.init) } catch {
            throw CatalogFailure(error.description)
        }
    }

    /// The default recorded by `install --web`, else the first installed handler of the scheme (the
    /// user's default first) that is not Waypost in disguise.
    func browser(forScheme scheme: String) throws(CatalogFailure) -> InstalledApp? {
        if let recorded = directory.previousDefault(forType: "x-scheme-handler/" + scheme, excluding: ownID), !handsLinksBack(recorded) {
            return InstalledApp(recorded)
        }
        do { return try directory.entries(forScheme: scheme).first { !handsLinksBack($0) }.map(InstalledApp.init) } catch {
            throw CatalogFailure(error.description)
        }
    }

    /// The browser `browser(forScheme:)` gives, then every other installed handler of the scheme
    /// that is no participating app and would not hand links back.
    func browsers(forScheme scheme: String) throws(CatalogFailure) -> [InstalledApp] {
        do { return try browserEntries(forScheme: scheme).map(InstalledApp.init) } catch { throw CatalogFailure(error.description) }
    }

    /// The installed browsers of a web scheme: the one recorded by `install --web` first, then
    /// every other handler that is no participating app and would not hand links back.
    func browserEntries(forScheme scheme: String) throws(CatalogError) -> [ApplicationEntry] {
        var browsers: [ApplicationEntry] = []
        if let recorded = directory.previousDefault(forType: "x-scheme-handler/" + scheme, excluding: ownID), !handsLinksBack(recorded) {
            browsers.append(recorded)
        }
        for entry in try directory.entries(forScheme: scheme)
        where !entry.participates && !handsLinksBack(entry) && !browsers.contains(where: { $0.id == entry.id }) {
            browsers.append(entry)
        }
        return browsers
    }

    func contentType(ofFile uri: String) -> String? { contentTypes?.contentType(ofFileURL: uri) }

    /// The app that opened the type before Waypost took it over (recorded by `waypost install`), else GIO's choice.
    func documentHandler(forType contentType: String) -> InstalledApp? {
        (directory.previousDefault(forType: contentType, excluding: ownID)
            ?? directory.fallbackHandler(forContentType: contentType, excluding: ownID)).map(InstalledApp.init)
    }

    func entry(id: String) -> InstalledApp? {
        guard let entry = try? directory.entry(id: id), !handsLinksBack(entry) else { return nil }
        return InstalledApp(entry)
    }

    func applications(forActivityType type: String) -> [InstalledApp] {
        directory.applications(forActivityType: type).map(InstalledApp.init)
    }

    func chosenApplicationID(forActivityType type: String) -> String? { directory.chosenApplicationID(forActivityType: type) }

    func handsLinksBack(_ entry: ApplicationEntry) -> Bool { Self.handsLinksBack(entry, ownID: ownID, ownProgram: ownProgram) }

    /// Whether opening a link with `entry` would bring it straight back to Waypost: its own entry, an
    /// entry that runs this very program, or one that runs a generic opener (`xdg-open %u` as a
    /// "browser" left in mimeapps.list). Without this guard a link would go round for ever.
    static func handsLinksBack(_ entry: ApplicationEntry, ownID: String, ownProgram: String?) -> Bool {
        if entry.id == ownID { return true }
        if let program = entry.executablePath {
            if program == ownProgram { return true }
            let name = program.split(separator: "/").last.map(String.init) ?? program
            if genericOpeners.contains(name) { return true }
        }
        return false
    }

    /// Programs that only ask the desktop's default handler, which for http and https is Waypost.
    static let genericOpeners: Set<String> = ["xdg-open", "gio", "gvfs-open", "kde-open", "kde-open5", "exo-open", "waypost"]
}

extension Dispatcher {
    /// The installed browsers in the order the dispatcher picks one for web links: the default
    /// `install --web` recorded, then every entry that opens https links; never one that would hand
    /// a link back to Waypost.
    public static func installedBrowsers(
        in directory: any ApplicationDirectory, configuration: Configuration = .init()
    ) throws(CatalogError) -> [ApplicationEntry] {
        let apps = DesktopApps(directory: directory, contentTypes: nil, ownID: configuration.ownEntryID, ownProgram: configuration.ownExecutable)
        return try apps.browserEntries(forScheme: "https")
    }
}

extension InstalledApp {
    init(_ entry: ApplicationEntry) {
        self.init(id: entry.id, participates: entry.participates, isDBusActivatable: entry.isDBusActivatable)
    }
}

extension Registry: RunningApps {
    func readyRouter(of appID: String) -> SceneRouter? { isReady(appID) ? router(of: appID) : nil }
}
