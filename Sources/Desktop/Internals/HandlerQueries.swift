internal import CGIO

/// GIO's handlers for one content type, in the user's order: the default (mimeapps.list
/// `[Default Applications]`, honoured even when the entry does not list the type), then GIO's
/// recommended handlers, then every other handler. Each entry appears once.
/// `g_app_info_get_default_for_type`, `g_app_info_get_recommended_for_type`, `g_app_info_get_all_for_type`.
func handlersInPreferenceOrder(contentType: String) -> [AppInfoReference] {
    var ordered: [AppInfoReference] = []
    var seen: Set<String> = []
    func append(_ candidates: [AppInfoReference]) {
        for candidate in candidates {
            guard let id = candidate.desktopFileID, seen.insert(id).inserted else { continue }
            ordered.append(candidate)
        }
    }
    // must_support_uris FALSE: a scheme handler's entries are desktop entries, which all take URIs.
    if let defaultInfo = gio.g_app_info_get_default_for_type(contentType, 0),
       let reference = AppInfoReference.adopt(appInfo: defaultInfo) {
        append([reference])
    }
    append(takeAppInfoList(gio.g_app_info_get_recommended_for_type(contentType)))
    append(takeAppInfoList(gio.g_app_info_get_all_for_type(contentType)))
    return ordered
}

/// Every installed desktop entry GIO would show (Hidden ones excluded), found by our own scan of
/// the applications directories: `g_app_info_get_all` opens every `*.desktop` file there, and
/// `open` on a FIFO of that name waits for a writer. An id whose file is not a regular file is left
/// out, not replaced by one it shadows (GIO would take that file). An entry GIO's cache does not
/// have from the file found yet is read from disk (`AppInfoReference.load`). Each entry waits while
/// a single question is answered (`CatalogTurns`). `g_desktop_app_info_new`.
func allInstalledEntries() -> [AppInfoReference] {
    desktopFilesOnDisk().compactMap { file in
        guard file.isRegularFile else { return nil }
        CatalogTurns.beforeNextEntry()
        if let cached = AppInfoReference.loadFromCheckedFile(desktopFileID: file.desktopFileID),
           cached.filename == file.path {
            return cached
        }
        return AppInfoReference.load(desktopFileID: file.desktopFileID)
    }
}

/// The user data dir first, then the system data dirs, as GLib resolved them for this process,
/// without trailing `/` (GIO's file names have none: paths built here must compare equal).
/// `g_get_user_data_dir`, `g_get_system_data_dirs` (both transfer none, cached by GLib).
func dataDirectoriesInPrecedenceOrder() -> [String] {
    var directories: [String] = []
    if let user = borrowGLibString(gio.g_get_user_data_dir()) { directories.append(user) }
    directories += borrowGLibStringVector(gio.g_get_system_data_dirs())
    return directories.map { directory in
        var trimmed = Substring(directory)
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        return String(trimmed)
    }
}

/// GIO's recommended handlers for a content type, in its order.
/// `g_app_info_get_recommended_for_type` (transfer full).
func recommendedHandlers(contentType: String) -> [AppInfoReference] {
    takeAppInfoList(gio.g_app_info_get_recommended_for_type(contentType))
}

/// The id of GIO's default entry for a content type (mimeapps.list first, then its own choice),
/// nil when there is none. `g_app_info_get_default_for_type` (transfer full).
func gioDefaultHandlerID(contentType: String) -> String? {
    guard let info = gio.g_app_info_get_default_for_type(contentType, 0) else { return nil }
    defer { gio.g_object_unref(gpointer(info)) }
    return borrowGLibString(gio.g_app_info_get_id(info))
}
