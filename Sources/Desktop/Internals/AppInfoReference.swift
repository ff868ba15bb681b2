internal import CGIO

/// Owns one reference to a `GDesktopAppInfo`; releases it in `deinit` (`g_object_unref`).
///
/// GIO's app infos are immutable once loaded, so reading from several threads is safe; the class is
/// still kept internal and short-lived: callers copy what they need into `ApplicationEntry`.
final class AppInfoReference {
    /// The `GDesktopAppInfo *` this object owns.
    let pointer: OpaquePointer
    /// The id asked for, when the entry was loaded from its file: GIO then names it by the file's
    /// base name (`b.desktop` for `a/b.desktop`), not by the id its place gives it.
    private let assignedDesktopFileID: String?

    /// Takes over a reference the caller owns (transfer full).
    init(taking pointer: OpaquePointer, desktopFileID: String? = nil) {
        self.pointer = pointer
        self.assignedDesktopFileID = desktopFileID
    }

    deinit { gio.g_object_unref(gpointer(pointer)) }

    /// The entry with this desktop-file id (with `.desktop`) as GIO gives it once its directory
    /// cache has caught up with the disk; nil when there is none, GIO refuses it, or the file that
    /// decides is not a regular file (GIO would wait in `open` on a FIFO).
    ///
    /// GIO's cache learns of a new file from inotify on its worker thread a moment after the write,
    /// and never of one in a subdirectory (it watches each applications directory, not below). When
    /// the cache has no answer, or one from a file that a higher data directory now shadows, the
    /// files are read as `g_desktop_app_info_new` reads them: data directories in precedence order,
    /// the first file GIO loads wins, a `Hidden=true` winner means none. `g_desktop_app_info_new`.
    static func load(desktopFileID: String) -> AppInfoReference? {
        let candidates = desktopFileCandidates(desktopFileID)
        guard let deciding = candidates.first else { return loadFromCheckedFile(desktopFileID: desktopFileID) }
        guard deciding.allSatisfy(isRegularFile) else { return nil }
        if let cached = loadFromCheckedFile(desktopFileID: desktopFileID),
           let file = cached.filename, deciding.contains(file) {
            return cached
        }
        for path in candidates.joined() where isRegularFile(path) {
            if let loaded = load(file: path, desktopFileID: desktopFileID) {
                return loaded.isHidden ? nil : loaded
            }
        }
        return nil
    }

    /// The entry from GIO's directory cache alone, for an id whose file the caller found to be a
    /// regular file.
    static func loadFromCheckedFile(desktopFileID: String) -> AppInfoReference? {
        gio.g_desktop_app_info_new(desktopFileID).map { AppInfoReference(taking: $0) }
    }

    /// Loads one file past GIO's directory cache, named `desktopFileID`; nil when GIO refuses it
    /// (key-file syntax, `Type`, `TryExec`, `Exec`, as for a cached entry). Loads `Hidden=true`
    /// entries too: the caller decides. `g_desktop_app_info_new_from_filename`.
    static func load(file path: String, desktopFileID: String) -> AppInfoReference? {
        gio.g_desktop_app_info_new_from_filename(path).map { AppInfoReference(taking: $0, desktopFileID: desktopFileID) }
    }

    /// The entry in `path` with its `Exec` replaced by `changingExec(Exec)` and `DBusActivatable`
    /// removed, so GIO spawns it. `g_key_file_load_from_file`, `g_key_file_set_string`,
    /// `g_desktop_app_info_new_from_keyfile` (transfer full).
    /// - Throws: GLib's failure reading the file, or one naming what is missing.
    static func load(file path: String, changingExec: (String) throws(GLibFailure) -> String) throws(GLibFailure) -> AppInfoReference {
        guard isRegularFile(path) else { throw GLibFailure(domain: "waypost", code: 0, message: "not a regular file") }
        let keyFile = gio.g_key_file_new()
        defer { gio.g_key_file_unref(keyFile) }
        _ = try withGLibError { error in gio.g_key_file_load_from_file(keyFile, path, G_KEY_FILE_NONE, error) }
        let group = "Desktop Entry"
        guard let exec = takeGLibString(gio.g_key_file_get_string(keyFile, group, "Exec", nil)), !exec.isEmpty else {
            throw GLibFailure(domain: "waypost", code: 0, message: "the entry has no Exec line")
        }
        gio.g_key_file_set_string(keyFile, group, "Exec", try changingExec(exec))
        // False when the entry had no such key: nothing to remove, which is as good.
        _ = gio.g_key_file_remove_key(keyFile, group, "DBusActivatable", nil)
        guard let info = gio.g_desktop_app_info_new_from_keyfile(keyFile) else {
            throw GLibFailure(domain: "waypost", code: 0, message: "GIO refuses the entry with the changed Exec line")
        }
        return AppInfoReference(taking: info)
    }

    /// `Hidden=true`: the entry is deleted (`g_desktop_app_info_new` returns none). `g_desktop_app_info_get_is_hidden`.
    var isHidden: Bool { gio.g_desktop_app_info_get_is_hidden(pointer) != 0 }

    /// Adopts a `GAppInfo *` (transfer full) when it is a desktop entry; otherwise releases it.
    /// `g_type_check_instance_is_a` (the C macro `G_IS_DESKTOP_APP_INFO`).
    static func adopt(appInfo: OpaquePointer) -> AppInfoReference? {
        let instance = UnsafeMutablePointer<GTypeInstance>(appInfo)
        guard gio.g_type_check_instance_is_a(instance, gio.g_desktop_app_info_get_type()) != 0 else {
            gio.g_object_unref(gpointer(appInfo))
            return nil
        }
        return AppInfoReference(taking: appInfo)
    }

    /// The desktop-file id, `.desktop` included (transfer none). `g_app_info_get_id`.
    var desktopFileID: String? { assignedDesktopFileID ?? borrowGLibString(gio.g_app_info_get_id(pointer)) }

    /// The localized `Name=` (transfer none). `g_app_info_get_name`.
    var name: String { borrowGLibString(gio.g_app_info_get_name(pointer)) ?? "" }

    /// The file the entry was loaded from (transfer none). `g_desktop_app_info_get_filename`.
    var filename: String? { borrowGLibString(gio.g_desktop_app_info_get_filename(pointer)) }

    /// A string key of `[Desktop Entry]`, unescaped (transfer full). `g_desktop_app_info_get_string`.
    func string(_ key: String) -> String? {
        takeGLibString(gio.g_desktop_app_info_get_string(pointer, key))
    }

    /// A boolean key of `[Desktop Entry]`; false when absent. `g_desktop_app_info_get_boolean`.
    func boolean(_ key: String) -> Bool {
        gio.g_desktop_app_info_get_boolean(pointer, key) != 0
    }

    /// A `;`-separated list key of `[Desktop Entry]` (transfer full). `g_desktop_app_info_get_string_list`.
    func stringList(_ key: String) -> [String] {
        takeGLibStringVector(gio.g_desktop_app_info_get_string_list(pointer, key, nil))
    }
}

/// Takes a `GList` of `GAppInfo *` (transfer full: list and elements), keeping the desktop entries.
/// `g_list_free`.
func takeAppInfoList(_ list: UnsafeMutablePointer<GList>?) -> [AppInfoReference] {
    var references: [AppInfoReference] = []
    var node = list
    while let current = node {
        if let data = current.pointee.data, let reference = AppInfoReference.adopt(appInfo: OpaquePointer(data)) {
            references.append(reference)
        }
        node = current.pointee.next
    }
    gio.g_list_free(list)
    return references
}
