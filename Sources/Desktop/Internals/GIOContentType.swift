internal import CGIO

/// GIO's content-type functions. On Unix a GIO content type is a MIME type from shared-mime-info.
enum GIOContentType {
    /// The local path a `file://` URI names, percent-decoded; nil for other URIs.
    /// Transfer full: the returned C string is freed here. `g_filename_from_uri`.
    static func path(ofFileURI uri: String) -> String? {
        try? withGLibError { error in takeGLibString(gio.g_filename_from_uri(uri, nil, error)) } ?? nil
    }

    /// The type guessed from a file name alone (no file is read); nil when GIO is uncertain.
    /// Transfer full. `g_content_type_guess`.
    static func guess(fileName: String) -> String? {
        var uncertain: gboolean = 0
        let type = takeGLibString(gio.g_content_type_guess(fileName, nil, 0, &uncertain))
        return uncertain != 0 ? nil : type
    }

    /// The content type for a MIME type, with aliases resolved (`text/x-markdown` → `text/markdown`).
    /// Transfer full; nil for a string that is not a MIME type. `g_content_type_from_mime_type`.
    static func fromMIMEType(_ mimeType: String) -> String? {
        takeGLibString(gio.g_content_type_from_mime_type(mimeType))
    }

    /// Whether `type` is `supertype` or a subtype of it. `g_content_type_is_a`.
    static func isA(_ type: String, _ supertype: String) -> Bool {
        gio.g_content_type_is_a(type, supertype) != 0
    }
}
