internal import CGIO

/// What Waypost reads of one `[Desktop Action NAME]` group.
struct ActionGroupKeys {
    var name: String?
    var icon: String?
    var type: String?
    var targetContentIdentifier: String?
    var userInfo: String?
}

extension ApplicationEntry {
    /// The entry's `Actions=` list, as GIO reads it from the entry's file (transfer full).
    /// `g_desktop_app_info_new_from_filename`, `g_desktop_app_info_get_string_list`.
    func actionNames() -> [String] {
        AppInfoReference.load(file: filePath, desktopFileID: desktopFileID)?.stringList("Actions").filter { !$0.isEmpty } ?? []
    }

    /// The action's group read from the entry's file; nil when the file or the group cannot be read.
    /// GIO's app info reads no keys of action groups but the name, so the file is read again as a
    /// key file (unescaped values, transfer full). `g_key_file_load_from_file`, `g_key_file_get_string`.
    func readActionGroup(file: String, action: String) -> ActionGroupKeys? {
        guard isRegularFile(file) else { return nil }
        let keyFile = gio.g_key_file_new()
        defer { gio.g_key_file_unref(keyFile) }
        guard (try? withGLibError({ error in gio.g_key_file_load_from_file(keyFile, file, G_KEY_FILE_NONE, error) })) != nil
        else { return nil }
        let group = "Desktop Action " + action
        guard gio.g_key_file_has_group(keyFile, group) != 0 else { return nil }
        func string(_ key: String) -> String? { takeGLibString(gio.g_key_file_get_string(keyFile, group, key, nil)) }
        return ActionGroupKeys(
            name: string("Name"), icon: string("Icon"), type: string(DesktopShortcut.Keys.type),
            targetContentIdentifier: string(DesktopShortcut.Keys.targetContentIdentifier),
            userInfo: string(DesktopShortcut.Keys.userInfo))
    }
}
