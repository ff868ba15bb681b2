import AssociationSources
import Desktop
import Dispatch
import Dispatcher
import Logging

/// What `waypost daemon` reads of the desktop before it takes its name, none of which needs the
/// bus: made while the daemon connects (docs/architecture.md, "What the daemon reads when").
struct DaemonDesktop: Sendable {
    let catalog: ApplicationCatalog
    let launcher: Launcher
    let contentTypes: ContentTypes
    let xdg: XDGDirectories
    let directory: CachedDirectory
    /// Universal links: the name is taken with the user's rules read (all a custom-scheme link
    /// reads); every entry's claims and every association file are read after, off the
    /// connection's thread: when the first web link or owned-domains question needs them, or
    /// `Daemon.wholeTableDelay` after the name, whichever comes first. Rebuilt whenever entries,
    /// association files or the verification cache change.
    let webLinks: WebLinkTable
    let associations: AssociationLoader

    /// - Throws: `GIOLoadError` when GIO cannot be opened.
    init(logger: Logger) async throws(GIOLoadError) {
        // Loading GIO's libraries blocks its thread for a few ms: not one of the (core-count)
        // threads that run the start-up's tasks.
        let loaded = await offThePool {
            Result { () throws(GIOLoadError) in
                (try ApplicationCatalog(), try Launcher(), try ContentTypes(), try XDGDirectories())
            }
        }
        (catalog, launcher, contentTypes, xdg) = try loaded.get()
        let (launcher, xdg) = (launcher, xdg)
        // GIO's own connection, which every launch uses, made now beside the start-up: the link that
        // started the daemon usually launches its app, and would wait for the connect.
        DispatchQueue.global().async { launcher.keepSessionBusOpen() }
        // GIO's index of the applications directories, which every link's handlers are looked up in.
        let catalog = catalog
        DispatchQueue.global().async { catalog.readAhead() }
        let directory = CachedDirectory(catalog)
        let webLinks = WebLinkTable(wholeLater: ())
        let associations = AssociationLoader(
            table: webLinks, directory: directory, directories: AssociationDirectories(xdg),
            verifier: Verifier(cache: AssociationCache(AssociationDirectories(xdg))), logger: logger)
        (self.directory, self.webLinks, self.associations) = (directory, webLinks, associations)
        webLinks.builds { Task { await associations.reload() } }
        await catalog.onChange {
            directory.invalidate()
            Task {
                await associations.reload()
                await associations.verifyDueDomains()
            }
        }
        // Made before they are watched: GIO polls a directory that does not exist every 4 s, and the
        // user's first rule (the browser extension's "Keep opening …") would wait for that.
        for made in [AssociationDirectories(xdg).user, AssociationDirectories(xdg).cache] { try? Files.makeDirectories(made) }
        let unwatched = try await DirectoryChanges.watch(associations.watchedDirectories) { _ in Task { await associations.reload() } }
        for directory in unwatched {
            logger.warning("cannot watch \(directory.path) (\(directory.reason)): it is checked every \(DirectoryChanges.pollingInterval) instead")
        }
        // Watched first: a rule written while they are read is seen by the watch. The rules name
        // schemes as well as domains, so a custom-scheme link needs them.
        await associations.loadUserRules()
    }
}

/// Runs blocking work on a thread of Dispatch's global pool and awaits it, leaving Swift's
/// cooperative threads (as many as the machine has cores) to the tasks that await.
func offThePool<Value: Sendable>(_ work: @escaping @Sendable () -> Value) async -> Value {
    await withCheckedContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(returning: work()) }
    }
}
