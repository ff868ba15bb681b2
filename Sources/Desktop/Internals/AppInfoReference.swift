internal import CGIO

/// Owns one reference to a `GDesktopAppInfo`; releases it in `deinit` (`g_object_unref`).
///
/// GIO's app infos are immutable once loaded, so reading from several threads is safe; the class is
/// still kept internal and short-lived: callers copy what they need into `ApplicationEntry`.
final class AppInfoReference {
    /// The `GDesktopAppInfo *` this object owns.
    let pointer: OpaquePointer

    /// Takes over a reference the caller owns (transfer full).
    init(taking pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit { gio.g_object_unref(gpointer(pointer)) }

    /// Loads the entry with this desktop-file id (with `.desktop`) from GIO's directory cache;
    /// nil when GIO has no such entry or refused to load it, or when its file is not a regular file
    /// (`desktopFileIsSafeToLoad`: GIO would wait in `open` on a FIFO). `g_desktop_app_info_new`.
    static func load(desktopFileID: String) -> AppInfoReference? {
        guard desktopFileIsSafeToLoad(desktopFileID) else { return nil }
        return loadFromCheckedFile(desktopFileID: desktopFileID)
    }

    /// `load(desktopFileID:)` for an id whose file the caller found to be a regular file.
    static func loadFromCheckedFile(desktopFileID: String) -> AppInfoReference? {
        gio.g_desktop_app_info_new(desktopFileID).map(AppInfoReference.init(taking:))
    }

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
    var desktopFileID: String? { borrowGLibString(gio.g_app_info_get_id(pointer)) }

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
