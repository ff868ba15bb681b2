public import DBus

extension Contract {
    /// `MonitorRouted`'s `options`; an absent key is false.
    public struct MonitorOptions: Sendable, Hashable {
        /// Whole URIs in `Routed`, query and fragment included; without it each event is cut to
        /// scheme, host and path (`waypost monitor --full`).
        public var fullURIs: Bool

        public init(fullURIs: Bool = false) { self.fullURIs = fullURIs }

        /// - Throws: `KeyError.wrongType` for a value that is not a boolean.
        public init(_ options: [String: Variant]) throws(KeyError) {
            fullURIs = try options.value(Keys.fullURIs) ?? false
        }

        public var variants: [String: Variant] {
            var options: [String: Variant] = [:]
            options.insert(Keys.fullURIs, fullURIs)
            return options
        }
    }
}

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
