/// The installed desktop entries, as GIO sees them for this process's XDG directories.
///
/// GIO reads the XDG variables once per process (set them before the first call) and keeps a
/// cache of the applications directories, refreshed by inotify monitors that GIO runs on its own
/// worker thread, so changes show up without a main loop, a moment after they happen. An entry
/// asked for by id (`entry(id:)`, launching, `unreadableEntries()`) is read from its file when
/// that cache does not know it yet, or never will (a file in a subdirectory of `applications`),
/// in GIO's own precedence: an app that registers just after writing its entry is found. Entries are
/// found by `MimeType=` only through `mimeinfo.cache` (`update-desktop-database`). Every method
/// is safe to call from any thread. Creating the cache holds inotify watches: keep the catalog off
/// short-lived commands (their exit gets slower).
public struct ApplicationCatalog: Sendable {
    /// - Throws: `GIOLoadError` when GIO cannot be opened (nothing here works without it).
    public init() throws(GIOLoadError) { try GIO.load() }

    /// The entry with this desktop-file id.
    /// - Parameter id: with or without `.desktop`.
    /// - Throws: `invalidApplicationID`, `notInstalled`, or `unreadable` with the file and why.
    public func entry(id: String) throws(CatalogError) -> ApplicationEntry {
        CatalogTurns.asking()
        defer { CatalogTurns.answered() }
        let desktopFileID = try Self.validatedDesktopFileID(id)
        if let reference = AppInfoReference.load(desktopFileID: desktopFileID),
           let entry = ApplicationEntry(reading: reference) {
            return entry
        }
        let bareID = String(desktopFileID.dropLast(".desktop".count))
        guard let file = desktopFilesOnDisk().first(where: { $0.desktopFileID == desktopFileID }) else {
            throw .notInstalled(applicationID: bareID)
        }
        throw .unreadable(
            applicationID: bareID, file: file.path,
            reason: diagnoseDesktopFile(at: file.path) ?? "GIO does not load it")
    }

    /// Reads GIO's index of the applications directories (which entries there are, the
    /// mimeapps.list, defaults.list and mimeinfo.cache files), which the first question about
    /// handlers reads otherwise: a daemon calls this beside its start-up, off the path of the link
    /// that started it. A question asked meanwhile waits for the reading under way (GIO's lock).
    public func readAhead() {
        CatalogTurns.asking()
        defer { CatalogTurns.answered() }
        // A type no entry lists: the index is read, and no entry is loaded.
        _ = schemeHandlers(contentType: "x-scheme-handler/x-waypost-read-ahead")
    }

    /// The participating (`X-Waypost=true`) entries that declare `x-scheme-handler/<scheme>`,
    /// the user's choice first: the mimeapps.list default, then GIO's recommended order.
    /// - Throws: `invalidScheme` when `scheme` is not a URL scheme.
    public func handlers(forScheme scheme: String) throws(CatalogError) -> [ApplicationEntry] {
        CatalogTurns.asking()
        defer { CatalogTurns.answered() }
        let contentType = try Self.schemeHandlerType(scheme)
        return schemeHandlers(contentType: contentType)
            .compactMap(ApplicationEntry.init(reading:))
            .filter { $0.participates && $0.declares(scheme: scheme) }
    }

    /// The handler a URL of `scheme` goes to when no participating app takes it: the default or first
    /// recommended entry that does not take part in Waypost. The default counts even when it does not
    /// list the scheme, as GIO honours it.
    /// - Parameters:
    ///   - scheme: the URL scheme.
    ///   - excludedID: an id never returned (Waypost's own dispatcher entry), with or without `.desktop`.
    /// - Returns: nil when no other handler is installed.
    /// - Throws: `invalidScheme`.
    public func fallbackHandler(
        forScheme scheme: String, excluding excludedID: String? = nil
    ) throws(CatalogError) -> ApplicationEntry? {
        CatalogTurns.asking()
        defer { CatalogTurns.answered() }
        let contentType = try Self.schemeHandlerType(scheme)
        let excluded = excludedID.map { $0.hasSuffix(".desktop") ? String($0.dropLast(8)) : $0 }
        return schemeHandlers(contentType: contentType)
            .lazy
            .compactMap(ApplicationEntry.init(reading:))
            .first { !$0.participates && $0.id != excluded }
    }

    /// Every entry that opens links of `scheme`, participating or not, the user's choice first (the
    /// mimeapps.list default, then GIO's recommended order): where a web link no app owns may go.
    /// - Throws: `invalidScheme`.
    public func entries(forScheme scheme: String) throws(CatalogError) -> [ApplicationEntry] {
        CatalogTurns.asking()
        defer { CatalogTurns.answered() }
        return schemeHandlers(contentType: try Self.schemeHandlerType(scheme)).compactMap(ApplicationEntry.init(reading:))
    }

    /// The ids GIO itself recommends for a type (what the portal offers, or opens when there is
    /// one), nothing added back: `waypost install` and `doctor` compare it with Waypost's entry alone.
    public func recommendedHandlerIDs(forType contentType: String) -> [String] {
        CatalogTurns.asking()
        defer { CatalogTurns.answered() }
        return recommendedHandlers(contentType: contentType).compactMap(\.desktopFileID)
    }

    /// GIO's handlers of a scheme in the user's order, then those `waypost install` hid from GIO (its
    /// `[Removed Associations]`, so that the portal sees Waypost's entry alone): they still handle
    /// the scheme for the dispatcher, in the order GIO gave them before.
    private func schemeHandlers(contentType: String) -> [AppInfoReference] {
        var handlers = handlersInPreferenceOrder(contentType: contentType)
        let hidden = TakeoverRecord.installed(directories: XDGDirectories(self)).flatMap { $0.hiddenHandlers(forType: contentType) }
        for id in hidden where !handlers.contains(where: { $0.desktopFileID == id }) {
            if let reference = AppInfoReference.load(desktopFileID: id) { handlers.append(reference) }
        }
        return handlers
    }

    /// Every installed entry with `X-Waypost=true`, ordered by id.
    public func participatingEntries() -> [ApplicationEntry] {
        allInstalledEntries()
            .compactMap(ApplicationEntry.init(reading:))
            .filter(\.participates)
            .sorted { $0.id < $1.id }
    }

    /// What the processes of every installed entry run, participating or not: which app a process
    /// is (the opener of a link). Reads each program's `#!` line; build it once per catalog change.
    public func installedPrograms() -> InstalledPrograms {
        var signatures: [String: [ProgramSignature]] = [:]
        for entry in allInstalledEntries().compactMap(ApplicationEntry.init(reading:)) {
            let found = resolvedSignatures(of: entry)
            if !found.isEmpty { signatures[entry.id] = found }
        }
        return InstalledPrograms(signatures)
    }

    /// The `.desktop` files in the applications directories that GIO does not load, each as an
    /// `unreadable` error naming the file and the reason (for `waypost doctor`).
    public func unreadableEntries() -> [CatalogError] {
        desktopFilesOnDisk().compactMap { file in
            guard AppInfoReference.load(desktopFileID: file.desktopFileID) == nil else { return nil }
            return .unreadable(
                applicationID: String(file.desktopFileID.dropLast(8)), file: file.path,
                reason: diagnoseDesktopFile(at: file.path) ?? "GIO does not load it")
        }
    }

    static func validatedDesktopFileID(_ id: String) throws(CatalogError) -> String {
        let bare = id.hasSuffix(".desktop") ? String(id.dropLast(8)) : id
        guard !bare.isEmpty, !bare.hasPrefix("."), !bare.contains("/"), !bare.contains("\0"),
              bare.utf8.count <= 255
        else { throw .invalidApplicationID(id) }
        return bare + ".desktop"
    }

    static func schemeHandlerType(_ scheme: String) throws(CatalogError) -> String {
        let bytes = Array(scheme.utf8)
        func isLetter(_ byte: UInt8) -> Bool { (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) }
        func isSchemeByte(_ byte: UInt8) -> Bool {
            isLetter(byte) || (0x30...0x39).contains(byte) || byte == 0x2B || byte == 0x2D || byte == 0x2E
        }
        guard let first = bytes.first, isLetter(first), bytes.allSatisfy(isSchemeByte), bytes.count <= 255 else {
            throw .invalidScheme(scheme)
        }
        return "x-scheme-handler/" + scheme.lowercased()
    }
}

extension ApplicationEntry {
    /// The entry in the desktop file at `path`, as GIO reads it, named `id`; nil when GIO refuses
    /// the file or it is `Hidden=true`. What a directory of entries kept as values reads (a test's
    /// desktop with no data directories).
    public init?(file path: String, id: String) throws(GIOLoadError) {
        try GIO.load()
        guard let reference = AppInfoReference.load(file: path, desktopFileID: id + ".desktop"), !reference.isHidden else { return nil }
        self.init(reading: reference)
    }

    /// Copies what Waypost needs out of a loaded entry; nil when GIO gave it no id.
    init?(reading reference: AppInfoReference) {
        guard let desktopFileID = reference.desktopFileID else { return nil }
        let schemePrefix = "x-scheme-handler/"
        let mimeTypes = reference.stringList("MimeType")
        let exec = reference.string("Exec")
        let tryExec = reference.string("TryExec")
        let program: String? =
            if let exec, !exec.isEmpty { (try? execArguments(exec))?.first } else { tryExec }
        self.init(
            id: desktopFileID.hasSuffix(".desktop") ? String(desktopFileID.dropLast(8)) : desktopFileID,
            filePath: reference.filename ?? "",
            name: reference.name,
            participates: reference.boolean("X-Waypost"),
            schemes: mimeTypes.filter { $0.lowercased().hasPrefix(schemePrefix) }
                .map { String($0.dropFirst(schemePrefix.count)).lowercased() },
            contentTypes: mimeTypes.filter { !$0.lowercased().hasPrefix(schemePrefix) },
            activityTypes: reference.stringList("X-Waypost-Activity-Types"),
            isDBusActivatable: reference.boolean("DBusActivatable"),
            startupNotify: reference.boolean("StartupNotify"),
            exec: exec,
            tryExec: tryExec,
            executablePath: program.flatMap(resolveProgram),
            associatedDomains: reference.stringList("X-Waypost-Associated-Domains"),
            icon: reference.string("Icon"),
            declaredExecutable: reference.string("X-Waypost-Executable"))
    }
}
