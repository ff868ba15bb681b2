// MonitorRouted's options (MonitorOptions) are generated from dbus/; here is how monitors and logs
// show a URI.

extension Contract {
    /// The URI cut to scheme, host and path, for logs and monitors: a query or fragment may carry a
    /// secret (`?session=…`), and so may user info (`user:password@`), so they are left out; "?…"
    /// says that something was. A text without a scheme is cut at its first `?` or `#` alike.
    public static func redacted(_ uri: String) -> String {
        let bytes = Array(uri.utf8)
        let end = bytes.firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? bytes.count
        var kept = Array(bytes[..<end])
        // User info sits between "//" and the host's "@", before the path's first "/".
        if let colon = kept.firstIndex(of: UInt8(ascii: ":")), kept.count >= colon + 3,
           kept[colon + 1] == UInt8(ascii: "/"), kept[colon + 2] == UInt8(ascii: "/") {
            let authorityStart = colon + 3
            let authorityEnd = kept[authorityStart...].firstIndex(of: UInt8(ascii: "/")) ?? kept.count
            if let at = kept[authorityStart..<authorityEnd].lastIndex(of: UInt8(ascii: "@")) {
                kept.removeSubrange(authorityStart...at)
            }
        }
        return String(decoding: kept, as: UTF8.self) + (end < bytes.count ? "?…" : "")
    }
}
