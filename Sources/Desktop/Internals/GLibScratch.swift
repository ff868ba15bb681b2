internal import CGIO

/// Takes ownership of a GLib-allocated C string (transfer full): copies it into Swift, then `g_free`s it.
func takeString(_ pointer: UnsafeMutablePointer<gchar>?) -> String? {
    guard let pointer else { return nil }
    defer { g_free(pointer) }
    return String(cString: pointer)
}

/// Runs `body` with a scratch `GError` slot; returns the error's message when one was set, and frees it.
func withGError<Result>(
    _ body: (UnsafeMutablePointer<UnsafeMutablePointer<GError>?>) -> Result
) -> (result: Result, error: String?) {
    var error: UnsafeMutablePointer<GError>? = nil
    let result = body(&error)
    guard let error else { return (result, nil) }
    defer { g_error_free(error) }
    return (result, error.pointee.message.map { String(cString: $0) })
}
