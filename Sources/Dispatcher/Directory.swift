public import Desktop

/// Where the dispatcher learns which installed app handles what: the desktop entries.
/// `ApplicationCatalog` answers from GIO; the protocol keeps the daemon's logic apart from it.
public protocol ApplicationDirectory: Sendable {
    /// Participating entries for a URL scheme, the user's preferred first.
    func handlers(forScheme scheme: String) throws(CatalogError) -> [ApplicationEntry]
    /// Every entry that opens links of a scheme, participating or not, the user's choice first.
    func entries(forScheme scheme: String) throws(CatalogError) -> [ApplicationEntry]
    /// Every participating entry (for the domains they claim).
    func participatingEntries() -> [ApplicationEntry]
    /// Every participating entry that lists this activity type (which one continues an activity
    /// is `Dispatcher.continuer`'s decision).
    func applications(forActivityType activityType: String) -> [ApplicationEntry]
    /// The desktop-file id the user chose for this activity type (`ActivityChoice`), if any.
    func chosenApplicationID(forActivityType activityType: String) -> String?
    /// The installed entry with this id.
    func entry(id: String) throws(CatalogError) -> ApplicationEntry
    /// The non-participating handler for a scheme, never the dispatcher's own entry.
    func fallbackHandler(forScheme scheme: String, excluding excludedID: String?) throws(CatalogError) -> ApplicationEntry?
    /// What `contentType` (`x-scheme-handler/…` or a file type) opened with before `waypost install`
    /// handed it to the dispatcher, when still installed; never `excludedID`.
    func previousDefault(forType contentType: String, excluding excludedID: String?) -> ApplicationEntry?
    /// What the processes of every installed entry run (which app a process is).
    func installedPrograms() -> InstalledPrograms
    /// `installedPrograms()` when they can be had at once; nil while they cannot (reading every entry
    /// takes tens of milliseconds on a desktop): what may not wait for that reading asks this.
    func installedProgramsIfRead() -> InstalledPrograms?
    /// `installedPrograms()`, awaited: a directory that reads them on a thread of its own suspends
    /// the caller until they are read, holding no thread meanwhile (`CachedDirectory`).
    func installedProgramsWhenRead() async -> InstalledPrograms
    /// The handler GIO picks for a file type, never `excludedID`.
    func fallbackHandler(forContentType contentType: String, excluding excludedID: String?) -> ApplicationEntry?
    /// The static shortcut (a `[Desktop Action]` with Waypost keys) of the app's own installed entry.
    func shortcut(appID: String, action: String) throws(ShortcutLookupError) -> DesktopShortcut
}

extension ApplicationDirectory {
    /// A directory that answers at once never has a reading under way.
    public func installedProgramsIfRead() -> InstalledPrograms? { installedPrograms() }

    /// A directory that answers at once has them at once.
    public func installedProgramsWhenRead() async -> InstalledPrograms { installedPrograms() }
}

/// Starts applications from their desktop entries.
public protocol ApplicationLauncher: Sendable {
    /// - Returns: the pids spawned; empty after D-Bus activation.
    func launch(_ entry: ApplicationEntry, uris: [String], platformData: LaunchPlatformData) throws(LaunchError) -> [Int32]
    /// A launch from `Exec` with `added` before its field code (a browser's profile or private window).
    func launch(_ entry: ApplicationEntry, adding added: [String], uris: [String], platformData: LaunchPlatformData) throws(LaunchError) -> [Int32]
}

extension ApplicationLauncher {
    /// A launch with arguments added before the entry's field code (a browser's profile); a
    /// launcher that cannot do it refuses, so a window is never silently dropped.
    public func launch(
        _ entry: ApplicationEntry, adding added: [String], uris: [String], platformData: LaunchPlatformData
    ) throws(LaunchError) -> [Int32] {
        guard !added.isEmpty else { return try launch(entry, uris: uris, platformData: platformData) }
        throw LaunchError(applicationID: entry.id, uris: uris, message: "this launcher cannot add the arguments \(added)")
    }
}

extension ApplicationCatalog: ApplicationDirectory {}
extension Launcher: ApplicationLauncher {}
