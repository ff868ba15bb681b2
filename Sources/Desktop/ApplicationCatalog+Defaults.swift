/// Defaults: what the desktop opens a type with, and what it opened it with before Waypost.
extension ApplicationCatalog {
    /// The desktop-file id (with `.desktop`) GIO opens `contentType` with now, nil when none.
    /// `contentType` is a MIME type or `x-scheme-handler/<scheme>`.
    public func defaultHandlerID(forType contentType: String) -> String? {
        CatalogTurns.asking()
        defer { CatalogTurns.answered() }
        return gioDefaultHandlerID(contentType: contentType)
    }

    /// The installed entry that was the default for `contentType` before `waypost install` took it
    /// over, as its record says (the user's record first); a MIME alias of a recorded type counts.
    /// - Parameter excludedID: never returned (the dispatcher's own entry), with or without `.desktop`.
    /// - Returns: nil when nothing was recorded or none of the recorded entries is installed now.
    public func previousDefault(forType contentType: String, excluding excludedID: String? = nil) -> ApplicationEntry? {
        CatalogTurns.asking()
        defer { CatalogTurns.answered() }
        let excluded = excludedID.map { $0.hasSuffix(".desktop") ? $0 : $0 + ".desktop" }
        let types = ContentTypes(self)
        for record in TakeoverRecord.installed(directories: XDGDirectories(self)) {
            let ids = record.previousDefaults[contentType]
                ?? record.previousDefaults.first { recorded, _ in
                    !recorded.hasPrefix("x-scheme-handler/")
                        && types.contentType(contentType, conformsTo: recorded)
                        && types.contentType(recorded, conformsTo: contentType)
                }?.value
            for id in ids ?? [] where id != excluded {
                if let entry = try? entry(id: id) { return entry }
            }
        }
        return nil
    }

    /// The handler GIO would pick for a file type, skipping `excludedID`: the default, then the
    /// recommended ones. Nil when no other entry opens it.
    public func fallbackHandler(forContentType contentType: String, excluding excludedID: String? = nil) -> ApplicationEntry? {
        CatalogTurns.asking()
        defer { CatalogTurns.answered() }
        let excluded = excludedID.map { $0.hasSuffix(".desktop") ? String($0.dropLast(8)) : $0 }
        return handlersInPreferenceOrder(contentType: contentType)
            .lazy.compactMap(ApplicationEntry.init(reading:))
            .first { $0.id != excluded }
    }
}
