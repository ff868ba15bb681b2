/// A `[Desktop Action NAME]` of an installed entry that Waypost routes: a static shortcut.
///
/// The keys (docs/shortcuts.md): `X-Waypost-Shortcut-Type` (required: without it the action is
/// the launcher's own business), `X-Waypost-Target-Content-Identifier`, `X-Waypost-User-Info` (a
/// JSON object, kept as written: the dispatcher decodes it with the project's one JSON value type).
public struct DesktopShortcut: Sendable, Hashable {
    /// The desktop-file id of the entry, without `.desktop`.
    public let appID: String
    /// The action's name, as `Actions=` lists it.
    public let action: String
    /// The action's `Name=`.
    public let name: String
    /// The action's `Icon=`.
    public let icon: String?
    /// `X-Waypost-Shortcut-Type`: the type the app's `onContinueUserActivity` handler is for.
    public let type: String
    /// `X-Waypost-Target-Content-Identifier`: what the routing rules match.
    public let targetContentIdentifier: String?
    /// `X-Waypost-User-Info`, as written.
    public let userInfoJSON: String?

    public init(
        appID: String, action: String, name: String, icon: String?, type: String, targetContentIdentifier: String?,
        userInfoJSON: String?
    ) {
        (self.appID, self.action, self.name, self.icon) = (appID, action, name, icon)
        (self.type, self.targetContentIdentifier, self.userInfoJSON) = (type, targetContentIdentifier, userInfoJSON)
    }

    /// - Throws: `invalidActionName` unless `name` is one by the Desktop Entry spec (letters,
    ///   digits and `-`, at most 255 bytes).
    public static func check(actionName name: String) throws(ShortcutLookupError) {
        guard !name.isEmpty, name.utf8.count <= 255,
              name.utf8.allSatisfy({ byte in
                  (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte == 0x2D
              })
        else { throw .invalidActionName(name) }
    }

    /// The keys Waypost reads in an action's group.
    public enum Keys {
        public static let type = "X-Waypost-Shortcut-Type"
        public static let targetContentIdentifier = "X-Waypost-Target-Content-Identifier"
        public static let userInfo = "X-Waypost-User-Info"
    }
}

/// Why an entry has no such shortcut; each case carries the names it was given.
public enum ShortcutLookupError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The entry itself could not be read.
    case catalog(CatalogError)
    /// Not an action name by the Desktop Entry spec (letters, digits and `-`).
    case invalidActionName(String)
    /// The entry's `Actions=` does not list it (or its group is missing).
    case unlisted(action: String, app: String, listed: [String])
    /// The action exists but has no `X-Waypost-Shortcut-Type`: it is not Waypost's to route.
    case notAShortcut(action: String, app: String)

    public var description: String {
        switch self {
        case .catalog(let error): error.description
        case .invalidActionName(let name): "'\(name)' is not a desktop action name (letters, digits and '-')"
        case .unlisted(let action, let app, let listed):
            "\(app) has no desktop action '\(action)'"
                + (listed.isEmpty ? " (it lists none)" : " (it lists \(listed.joined(separator: ", ")))")
        case .notAShortcut(let action, let app):
            "desktop action '\(action)' of \(app) has no \(DesktopShortcut.Keys.type): it is not a Waypost shortcut"
        }
    }
}

extension ApplicationCatalog {
    /// The static shortcut `action` of the installed entry `appID`, read from the entry's own file.
    /// - Throws: `catalog` when the entry is missing or unreadable; as `ApplicationEntry.shortcut`.
    public func shortcut(appID: String, action: String) throws(ShortcutLookupError) -> DesktopShortcut {
        try DesktopShortcut.check(actionName: action)
        let entry: ApplicationEntry
        do { entry = try self.entry(id: appID) } catch { throw .catalog(error) }
        return try entry.shortcut(action: action)
    }

    /// Every static shortcut of the entry, in `Actions=` order (actions without Waypost keys left out).
    /// - Throws: `catalog` when the entry is missing or unreadable.
    public func shortcuts(appID: String) throws(ShortcutLookupError) -> [DesktopShortcut] {
        let entry: ApplicationEntry
        do { entry = try self.entry(id: appID) } catch { throw .catalog(error) }
        return entry.actionNames().compactMap { try? entry.shortcut(action: $0) }
    }
}

extension ApplicationEntry {
    /// The static shortcut `action` of this entry, read from its file (whoever found the entry).
    /// - Throws: `invalidActionName`; `unlisted` when `Actions=` does not list it or its group is
    ///   missing; `notAShortcut`.
    public func shortcut(action: String) throws(ShortcutLookupError) -> DesktopShortcut {
        try DesktopShortcut.check(actionName: action)
        let listed = actionNames()
        guard listed.contains(action), let keys = readActionGroup(file: filePath, action: action) else {
            throw .unlisted(action: action, app: id, listed: listed)
        }
        guard let type = keys.type, !type.isEmpty else { throw .notAShortcut(action: action, app: id) }
        return DesktopShortcut(
            appID: id, action: action, name: keys.name ?? action, icon: keys.icon, type: type,
            targetContentIdentifier: keys.targetContentIdentifier, userInfoJSON: keys.userInfo)
    }
}
