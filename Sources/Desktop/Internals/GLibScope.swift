internal import CGIO

/// A GError copied into Swift: GLib's domain name, code and human-readable message.
struct GLibFailure: Error, Sendable {
    let domain: String
    let code: Int32
    let message: String
}

/// Runs `body` with a fresh `GError **` and frees whatever GLib stored there (transfer full).
///
/// Throws the copied error when GLib set one, whatever `body` returned. `g_error_free`.
func withGLibError<T>(
    _ body: (UnsafeMutablePointer<UnsafeMutablePointer<GError>?>) -> T
) throws(GLibFailure) -> T {
    var error: UnsafeMutablePointer<GError>? = nil
    let value = body(&error)
    if let error {
        defer { gio.g_error_free(error) }
        let domain = gio.g_quark_to_string(error.pointee.domain).map { String(cString: $0) } ?? "unknown"
        let message = error.pointee.message.map { String(cString: $0) } ?? "(no message)"
        throw GLibFailure(domain: domain, code: error.pointee.code, message: message)
    }
    return value
}

/// Copies and frees a string GLib handed over (transfer full). `g_free`.
func takeGLibString(_ pointer: UnsafeMutablePointer<gchar>?) -> String? {
    guard let pointer else { return nil }
    defer { gio.g_free(pointer) }
    return String(cString: pointer)
}

/// Copies a string GLib still owns (transfer none).
func borrowGLibString(_ pointer: UnsafePointer<gchar>?) -> String? {
    pointer.map { String(cString: $0) }
}

/// Copies and frees a NULL-terminated string vector (transfer full). `g_strfreev`.
func takeGLibStringVector(_ vector: UnsafeMutablePointer<UnsafeMutablePointer<gchar>?>?) -> [String] {
    guard let vector else { return [] }
    defer { gio.g_strfreev(vector) }
    var strings: [String] = []
    var index = 0
    while let element = vector[index] {
        strings.append(String(cString: element))
        index += 1
    }
    return strings
}

/// Copies a NULL-terminated string vector GLib still owns (transfer none).
func borrowGLibStringVector(_ vector: UnsafePointer<UnsafePointer<gchar>?>?) -> [String] {
    guard let vector else { return [] }
    var strings: [String] = []
    var index = 0
    while let element = vector[index] {
        strings.append(String(cString: element))
        index += 1
    }
    return strings
}
