// One file over 300 lines: installing, refreshing and uninstalling write and undo the same set of
// files, and must be read side by side to stay each other's inverse.
public import Desktop

/// Why installing, refreshing or uninstalling stopped. Nothing was written when it is thrown
/// before the first write, which is the case for every damaged file it can detect.
public enum InstallError: Error, Sendable, CustomStringConvertible {
    /// A file could not be read, parsed or written (the error names the file, and the line).
    case file(KeyFileError)
    /// A desktop entry that mentions `X-Waypost` is not valid key-file syntax.
    case damagedEntry(KeyFileError)
    /// `refresh` before `install`.
    case notInstalled(record: String)

    public var description: String {
        switch self {
        case .file(let error): "\(error)"
        case .damagedEntry(let error): "damaged desktop entry: \(error)"
        case .notInstalled(let record): "Waypost is not installed here (no \(record)); run `waypost install` first"
        }
    }
}

/// Installs Waypost into the desktop: its entries, and the defaults of every type an opted-in
/// app declares, recording what each type opened with before so that links can fall back to it
/// and `uninstall` can put `mimeapps.list` back byte for byte.
///
/// Policy: every scheme an opted-in (`X-Waypost=true`) entry declares goes to Waypost; of its file
/// types only those the user already opens with that app (so a file keeps opening in the same app).
/// http, https (and text/html) only when asked (`install --web`): they are the browser's otherwise.
/// Idempotent: a second run changes nothing. Files are read and checked before anything is written.
public struct Installer: Sendable {
    public let layout: InstallLayout
    /// The absolute path written into `Exec` lines.
    public let program: String
    let catalog: ApplicationCatalog
    let own = HandlerFiles.desktopFileID

    /// - Throws: `GIOLoadError` when GIO, which reads the entries and defaults, cannot be opened.
    public init(layout: InstallLayout, program: String) throws(GIOLoadError) {
        self.layout = layout
        self.program = program
        catalog = try ApplicationCatalog()
    }

    /// What a run changed, one line per change, and what it noticed but could not act on.
    public struct Report: Sendable {
        public var changes: [String] = []
        public var warnings: [String] = []
    }

    /// Writes the handler's files and hands the opted-in types over.
    /// - Parameters:
    ///   - web: http and https links go to Waypost too (universal links), the user's browser recorded
    ///     as where every link no app owns goes; kept by later runs until `uninstall(webOnly:)`.
    ///   - html: local HTML files too (with `web`).
    /// - Throws: `InstallError` naming the damaged file and line; nothing is written then.
    public func install(web: Bool = false, html: Bool = false) throws(InstallError) -> Report {
        try apply(requireRecord: false) { record in
            record.web = record.web || web || html
            record.html = record.html || html
        }
    }

    /// Like `install`, after apps were installed or removed: new types are handed over, types no
    /// opted-in app declares any more go back to their previous default.
    /// - Throws: `notInstalled` when Waypost was never installed with this layout.
    public func refresh() throws(InstallError) -> Report {
        try apply(requireRecord: true)
    }

    private func apply(
        requireRecord: Bool, adjust: (inout TakeoverRecord) -> Void = { _ in }
    ) throws(InstallError) -> Report {
        var report = Report()
        var mimeApps: MimeAppsList
        var existing: TakeoverRecord?
        do {
            mimeApps = try MimeAppsList(path: layout.mimeAppsList)
            existing = try TakeoverRecord.load(path: layout.record)
        } catch { throw .file(error) }
        if requireRecord && existing == nil { throw .notInstalled(record: layout.record) }
        report.warnings = try damagedEntries()
        var record = existing ?? TakeoverRecord(mimeAppsList: layout.mimeAppsList)
        adjust(&record)
        let before = mimeApps.text.bytes

        let wanted = wantedTypes(record: record)
        do {
            for (type, app) in wanted.sorted(by: { $0.key < $1.key }) {
                let current = mimeApps.defaults(for: type)
                if current == [own] && record.previousDefaults[type] != nil { continue }
                let previous = (current + [catalog.defaultHandlerID(forType: type)].compactMap { $0 })
                    .filter { $0 != own }
                record.previousDefaults[type] = previous.reduce(into: []) { if !$0.contains($1) { $0.append($1) } }
                let change = try mimeApps.setDefault(type, to: own)
                record.previousLines[type] = change.previousLine
                record.createdGroup = record.createdGroup || change.createdGroup
                record.addedFinalNewline = record.addedFinalNewline || change.addedFinalNewline
                let was = previous.first.map { " (was \($0))" } ?? ""
                if Self.webTypes.contains(type) {
                    report.changes.append("\(type) → Waypost → the app that owns the link's domain, else \(previous.first ?? "no browser")\(was)")
                    if previous.isEmpty { report.warnings.append("no browser is installed for \(type): web links no app owns will fail") }
                } else {
                    report.changes.append("\(type) → Waypost → \(app)\(was)")
                }
            }
            for type in wanted.keys.sorted() where Self.isScheme(type) {
                try recommendOwnEntryAlone(for: type, in: &mimeApps, record: &record, report: &report)
            }
            for type in record.types where wanted[type] == nil {
                try mimeApps.restoreDefault(type, from: own, previousLine: record.previousLines[type])
                try restoreAssociations(of: type, in: &mimeApps, record: &record)
                let back = record.previousDefaults[type]?.first.map { " back to \($0)" } ?? ""
                record.previousDefaults[type] = nil
                record.previousLines[type] = nil
                let why = Self.webTypes.contains(type) ? "given back to the browser" : "no longer declared by an opted-in app: handed"
                report.changes.append("\(type) \(why)\(back)")
            }
            // Nothing handed over any more: the file goes back to what it was, byte for byte.
            if record.types.isEmpty && (record.createdGroup || record.createdRemovedGroup) {
                mimeApps.removeCreatedGroups(Self.createdGroups(record), addedFinalNewline: record.addedFinalNewline)
                record.createdGroup = false
                record.createdRemovedGroup = false
                record.addedFinalNewline = false
            }
            let changed = mimeApps.text.bytes != before
            if changed && !mimeApps.existed { record.createdFile = true }
            let emptied = changed && record.createdFile && mimeApps.text.lines.isEmpty
            if emptied { record.createdFile = false }

            try write(HandlerFiles.desktopEntry(program: program, mimeTypes: wanted.keys.sorted()), to: layout.handlerEntry, report: &report)
            try write(HandlerFiles.dbusService(program: program), to: layout.serviceFile, report: &report)
            try write(HandlerFiles.systemdUnit(program: program), to: layout.systemdUnit, report: &report)
            try writeSearchProviders(&report)
            // The record first: a crash between the two writes must not lose a previous default.
            if existing != record || existing == nil {
                try Files.write(record.bytes, to: layout.record)
            }
            if changed {
                try mimeApps.save(removeWhenEmpty: emptied)
                report.changes.append(emptied ? "removed \(layout.mimeAppsList), which Waypost had created" : "updated \(layout.mimeAppsList)")
            }
        } catch { throw .file(error) }
        refreshDesktopDatabase(&report)
        return report
    }

    /// Removes Waypost's files and puts every recorded `mimeapps.list` line back; a default the
    /// user changed since is left alone (and reported).
    /// - Parameter webOnly: gives back only http, https and text/html (`uninstall --web`), byte for
    ///   byte; the schemes of opted-in apps stay with Waypost.
    /// - Throws: `InstallError` naming a damaged file; nothing is changed then.
    public func uninstall(webOnly: Bool = false) throws(InstallError) -> Report {
        if webOnly {
            return try apply(requireRecord: true) { record in
                record.web = false
                record.html = false
            }
        }
        var report = Report()
        do {
            if let record = try TakeoverRecord.load(path: layout.record) {
                var mimeApps = try MimeAppsList(path: record.mimeAppsList.isEmpty ? layout.mimeAppsList : record.mimeAppsList)
                let before = mimeApps.text.bytes
                var record = record
                for type in record.types {
                    if try !mimeApps.restoreDefault(type, from: own, previousLine: record.previousLines[type]) {
                        report.warnings.append("\(type): its default was changed since install; left as it is")
                    }
                    for group in try restoreAssociations(of: type, in: &mimeApps, record: &record) {
                        report.warnings.append("\(type): its [\(group)] line was changed since install; left as it is")
                    }
                }
                mimeApps.removeCreatedGroups(Self.createdGroups(record), addedFinalNewline: record.addedFinalNewline)
                if mimeApps.text.bytes != before {
                    try mimeApps.save(removeWhenEmpty: record.createdFile)
                    report.changes.append("restored \(mimeApps.path)")
                }
                try Files.remove(layout.record)
                report.changes.append("removed \(layout.record)")
            }
            for file in [layout.handlerEntry, layout.serviceFile, layout.systemdUnit] + layout.searchFiles where Files.exists(file) {
                try Files.remove(file)
                report.changes.append("removed \(file)")
            }
        } catch { throw .file(error) }
        refreshDesktopDatabase(&report)
        return report
    }

    /// Type → the opted-in app it goes to: every declared scheme; each file type whose default is
    /// that app now, or was before Waypost took it over.
    func wantedTypes(record: TakeoverRecord) -> [String: String] {
        var wanted: [String: String] = [:]
        if record.web {
            for type in Self.webTypes where type != "text/html" || record.html { wanted[type] = "the browser" }
        }
        for entry in catalog.participatingEntries() where entry.desktopFileID != own {
            for scheme in entry.schemes where wanted["x-scheme-handler/" + scheme] == nil && !["http", "https"].contains(scheme) {
                wanted["x-scheme-handler/" + scheme] = entry.id
            }
            for type in entry.contentTypes where wanted[type] == nil && !Self.webTypes.contains(type) {
                let isDefault = catalog.defaultHandlerID(forType: type) == entry.desktopFileID
                let wasDefault = record.previousDefaults[type]?.first == entry.desktopFileID
                if isDefault || wasDefault { wanted[type] = entry.id }
            }
        }
        return wanted
    }

    /// Makes GIO recommend Waypost's entry alone for a handed-over scheme: every other entry that
    /// lists it goes into `[Removed Associations]`, and an `[Added Associations]` line naming others
    /// (which would outweigh the removal) names Waypost's entry instead. The portal's OpenURI opens a
    /// scheme's links without asking only when GIO recommends one app, and then opens the default:
    /// with the app's own entry recommended too, every link from Chromium or a Flatpak app asked
    /// the user to choose between Waypost and the app. The dispatcher still sees the hidden entries
    /// (`ApplicationCatalog` adds back what the record says Waypost hid). Each line is recorded as it
    /// was before Waypost first wrote it, for `uninstall`.
    private func recommendOwnEntryAlone(
        for type: String, in mimeApps: inout MimeAppsList, record: inout TakeoverRecord, report: inout Report
    ) throws(KeyFileError) {
        let removed = mimeApps.ids(for: type, in: MimeAppsList.removedGroup)
        let others = catalog.recommendedHandlerIDs(forType: type).filter { $0 != own && !removed.contains($0) }
        if !others.isEmpty {
            let change = try mimeApps.setLine(type, to: removed + others, in: MimeAppsList.removedGroup)
            let previous = record.removedAssociations[type].map(\.previous) ?? change.previousLine
            record.removedAssociations[type] = .init(written: removed + others, previous: previous)
            record.createdRemovedGroup = record.createdRemovedGroup || change.createdGroup
            record.addedFinalNewline = record.addedFinalNewline || change.addedFinalNewline
            report.changes.append("\(type): GIO recommends Waypost alone (\(others.joined(separator: ", ")) in [Removed Associations])")
        }
        let added = mimeApps.ids(for: type, in: MimeAppsList.addedGroup)
        if added.contains(where: { $0 != own }) {
            let change = try mimeApps.setLine(type, to: [own], in: MimeAppsList.addedGroup)
            let previous = record.addedAssociations[type].map(\.previous) ?? change.previousLine
            record.addedAssociations[type] = .init(written: [own], previous: previous)
            report.changes.append("\(type): [Added Associations] names Waypost instead of \(added.filter { $0 != own }.joined(separator: ", "))")
        }
    }

    /// Puts back the association lines `recommendOwnEntryAlone` wrote for `type`, each only while it
    /// is as Waypost wrote it, and forgets them.
    /// - Returns: the groups whose line the user changed since (left as they are).
    @discardableResult
    private func restoreAssociations(
        of type: String, in mimeApps: inout MimeAppsList, record: inout TakeoverRecord
    ) throws(KeyFileError) -> [String] {
        var changedSince: [String] = []
        for (group, line) in [(MimeAppsList.removedGroup, record.removedAssociations[type]), (MimeAppsList.addedGroup, record.addedAssociations[type])] {
            guard let line else { continue }
            if try !mimeApps.restoreLine(type, in: group, ifStill: line.written, previousLine: line.previous) { changedSince.append(group) }
        }
        record.removedAssociations[type] = nil
        record.addedAssociations[type] = nil
        return changedSince
    }

    /// The groups Waypost created in `mimeapps.list`, the last created first.
    static func createdGroups(_ record: TakeoverRecord) -> [String] {
        (record.createdRemovedGroup ? [MimeAppsList.removedGroup] : []) + (record.createdGroup ? [MimeAppsList.defaultsGroup] : [])
    }

    /// A scheme of an app's own (not http or https, which the portal opens with the default anyway).
    static func isScheme(_ type: String) -> Bool { type.hasPrefix("x-scheme-handler/") && !webTypes.contains(type) }

    /// What `install --web [--html]` takes over. An app's own `MimeType=x-scheme-handler/https` never
    /// hands it all of https: its domains go to it through associations only.
    static let webTypes: Set<String> = ["x-scheme-handler/http", "x-scheme-handler/https", "text/html"]

    /// Entries GIO refuses: an error for one that seems to opt in but is not valid syntax (it
    /// would silently lose its links), a warning for every other.
    func damagedEntries() throws(InstallError) -> [String] {
        var warnings: [String] = []
        for case .unreadable(_, let file, let reason) in catalog.unreadableEntries() {
            let bytes = (try? Files.read(file)) ?? nil
            let mentionsWaypost = bytes.map { String(decoding: $0, as: UTF8.self).contains("X-Waypost") } ?? false
            if mentionsWaypost, let bytes {
                do { _ = try KeyFileText(bytes: bytes, file: file) } catch { throw .damagedEntry(error) }
            }
            warnings.append("\(file) is not usable: \(reason)")
        }
        return warnings
    }

    private func write(_ text: String, to path: String, report: inout Report) throws(KeyFileError) {
        let bytes = Array(text.utf8)
        if try Files.read(path) == bytes { return }
        try Files.write(bytes, to: path)
        report.changes.append("wrote \(path)")
    }

    /// GIO finds entries by `MimeType=` only through `mimeinfo.cache`; refresh it when the tool is there.
    private func refreshDesktopDatabase(_ report: inout Report) {
        do {
            guard let tool = try Files.findProgram("update-desktop-database") else {
                report.warnings.append("update-desktop-database is not installed (package desktop-file-utils); mimeinfo.cache was not refreshed")
                return
            }
            guard Files.isDirectory(layout.applications) else { return }
            if let result = try Files.run(tool, [layout.applications]), result.status != 0 {
                report.warnings.append("update-desktop-database \(layout.applications) failed: \(result.output)")
            }
        } catch {
            report.warnings.append("mimeinfo.cache was not refreshed: \(error)")
        }
    }
}
