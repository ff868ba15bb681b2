/// An `https` (or `http`) link split into the parts association files match: host, path, query and
/// fragment, with the port and user-info kept as facts for the ownership decision.
///
/// Parsed from its UTF-8 bytes by RFC 3986's generic syntax, the way browsers split a special URL:
/// - the scheme and host are lower-cased, and one trailing dot of the host removed
///   (`HTTPS://Shop.Example./` is `https://shop.example/`);
/// - the path, query and fragment are kept percent-encoded as a browser sends them, with raw
///   non-ASCII bytes encoded and escapes' hex digits upper case (`/café` is `/caf%C3%A9`); an
///   empty path is `/`, as browsers write it;
/// - refused: a host that is not ASCII (browsers send an internationalised host in its `xn--`
///   form, which is what an association names), a percent-encoded host, empty labels, user-info
///   or ports that cannot be parsed, raw spaces and control characters.
public struct WebLink: Sendable, Hashable, CustomStringConvertible {
    /// The link as given.
    public let url: String
    /// `https` or `http`.
    public let scheme: String
    /// Lower case, without its trailing dot; an IPv6 literal keeps its brackets.
    public let host: String
    /// The port written in the link, if any (`:443` included): see `hasDefaultPort`.
    public let port: Int?
    /// Whether the link has user-info (`https://user@shop.example/`).
    public let hasUserInfo: Bool
    /// Percent-encoded; never empty.
    public let path: String
    /// Percent-encoded, without its `?`; nil when the link has no `?`.
    public let query: String?
    /// Percent-encoded, without its `#`; nil when the link has no `#`.
    public let fragment: String?

    /// At most this many bytes of host (without its trailing dot): a domain name's limit.
    public static let maximumHostBytes = 253

    /// - Throws: `WebLinkError` naming the link and what is wrong with it.
    public init(_ url: String) throws(WebLinkError) {
        func refuse(_ reason: String) -> WebLinkError { WebLinkError(url: url, reason: reason) }
        self.url = url
        let colon: Int
        do { colon = try URISyntax.schemeEnd(of: url) } catch { throw refuse(error.reason) }
        let bytes = url.utf8.span
        let scheme = String(decoding: url.utf8.prefix(colon), as: UTF8.self).lowercased()
        guard scheme == "https" || scheme == "http" else { throw refuse("a \(scheme): link is not a web link") }
        self.scheme = scheme
        guard colon + 2 < bytes.count, bytes[colon + 1] == UInt8(ascii: "/"), bytes[colon + 2] == UInt8(ascii: "/") else {
            throw refuse("\(scheme): is not followed by // and a host")
        }

        // The authority runs to the first /, ? or #; the user-info ends at its last @.
        let authorityStart = colon + 3
        var authorityEnd = authorityStart
        while authorityEnd < bytes.count, bytes[authorityEnd] != UInt8(ascii: "/"),
            bytes[authorityEnd] != UInt8(ascii: "?"), bytes[authorityEnd] != UInt8(ascii: "#")
        {
            if bytes[authorityEnd] == UInt8(ascii: "\\") { throw refuse("its host part contains a backslash") }
            authorityEnd += 1
        }
        var hostStart = authorityStart
        for index in authorityStart..<authorityEnd where bytes[index] == UInt8(ascii: "@") { hostStart = index + 1 }
        hasUserInfo = hostStart != authorityStart

        var hostEnd = authorityEnd
        var portText: String?
        if hostStart < authorityEnd, bytes[hostStart] == UInt8(ascii: "[") {
            var close = hostStart
            while close < authorityEnd, bytes[close] != UInt8(ascii: "]") { close += 1 }
            guard close < authorityEnd else { throw refuse("its IPv6 host has no closing ]") }
            hostEnd = close + 1
            if hostEnd < authorityEnd {
                guard bytes[hostEnd] == UInt8(ascii: ":") else { throw refuse("its IPv6 host is followed by more than a port") }
                portText = Self.text(url, hostEnd + 1, authorityEnd)
            }
        } else {
            var index = authorityEnd
            while index > hostStart {
                index -= 1
                if bytes[index] == UInt8(ascii: ":") {
                    hostEnd = index
                    portText = Self.text(url, index + 1, authorityEnd)
                    break
                }
            }
        }
        if let portText, !portText.isEmpty {
            guard portText.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
                let port = Int(portText), port <= 65535
            else { throw refuse("its port \"\(portText)\" is not a number from 0 to 65535") }
            self.port = port
        } else {
            port = nil
        }
        host = try Self.host(url, hostStart, hostEnd, refuse)

        // Path to the first ? or #, query to the first #, fragment after it.
        var pathEnd = authorityEnd
        while pathEnd < bytes.count, bytes[pathEnd] != UInt8(ascii: "?"), bytes[pathEnd] != UInt8(ascii: "#") { pathEnd += 1 }
        var queryEnd = pathEnd
        while queryEnd < bytes.count, bytes[queryEnd] != UInt8(ascii: "#") { queryEnd += 1 }
        let path = PercentEncoding.normalized(Self.text(url, authorityEnd, pathEnd))
        self.path = path.isEmpty ? "/" : path
        query = pathEnd < queryEnd ? PercentEncoding.normalized(Self.text(url, pathEnd + 1, queryEnd)) : nil
        fragment = queryEnd < bytes.count ? PercentEncoding.normalized(Self.text(url, queryEnd + 1, bytes.count)) : nil
    }

    /// A link of a custom scheme (`zoommtg://zoom.us/join?confno=1`, `mailto:a@b.example`), split
    /// the same way for the user's rules by scheme: after `//`, the authority's host (lower case,
    /// not checked) and the path from its `/`; without `//`, no host and all up to `?` as the path.
    /// nil for text `URISyntax` refuses.
    public init?(customSchemeLink url: String) {
        guard let colon = try? URISyntax.schemeEnd(of: url) else { return nil }
        let bytes = Array(url.utf8)
        self.url = url
        scheme = String(decoding: bytes[..<colon], as: UTF8.self).lowercased()
        port = nil
        var start = colon + 1
        var host = ""
        var userInfo = false
        if bytes.count >= start + 2, bytes[start] == UInt8(ascii: "/"), bytes[start + 1] == UInt8(ascii: "/") {
            var end = start + 2
            while end < bytes.count, ![UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#")].contains(bytes[end]) { end += 1 }
            var authority = bytes[(start + 2)..<end]
            if let at = authority.lastIndex(of: UInt8(ascii: "@")) {
                userInfo = true
                authority = authority[(at + 1)...]
            }
            host = String(decoding: authority, as: UTF8.self).lowercased()
            start = end
        }
        self.host = host
        hasUserInfo = userInfo
        let pathEnd = bytes[start...].firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? bytes.count
        let queryEnd = bytes[pathEnd...].firstIndex(of: UInt8(ascii: "#")) ?? bytes.count
        let path = PercentEncoding.normalized(Self.text(url, start, pathEnd))
        self.path = path.isEmpty ? "/" : path
        query = pathEnd < queryEnd ? PercentEncoding.normalized(Self.text(url, pathEnd + 1, queryEnd)) : nil
        fragment = queryEnd < bytes.count ? PercentEncoding.normalized(Self.text(url, queryEnd + 1, bytes.count)) : nil
    }

    /// Whether the link names no port, or its scheme's own (443 for https, 80 for http).
    public var hasDefaultPort: Bool {
        port == nil || port == (scheme == "https" ? 443 : 80)
    }

    public var description: String { url }

    private static func text(_ url: String, _ start: Int, _ end: Int) -> String {
        String(decoding: url.utf8.dropFirst(start).prefix(end - start), as: UTF8.self)
    }

    /// The host lower-cased without one trailing dot, or the reason it is refused.
    private static func host(
        _ url: String, _ start: Int, _ end: Int, _ refuse: (String) -> WebLinkError
    ) throws(WebLinkError) -> String {
        var host = Array(url.utf8.dropFirst(start).prefix(end - start))
        if host.last == UInt8(ascii: "."), host.first != UInt8(ascii: "[") { host.removeLast() }
        guard !host.isEmpty else { throw refuse("it has no host") }
        // DNS's limit; past it no host resolves, and matching would walk every label.
        guard host.count <= Self.maximumHostBytes else {
            throw refuse("its host is \(host.count) bytes; a domain name has at most \(Self.maximumHostBytes)")
        }
        if host.contains(UInt8(ascii: "%")) {
            throw refuse("its host is percent-encoded; browsers send hosts decoded, and associations name them so")
        }
        if host.contains(where: { $0 >= 0x80 }) {
            throw refuse("its host is not ASCII; an internationalised host is matched in its xn-- form, which browsers send")
        }
        for index in host.indices where host[index] &- UInt8(ascii: "A") < 26 { host[index] |= 0x20 }
        if host.first == UInt8(ascii: "[") {
            let inside = host.dropFirst().dropLast()
            guard !inside.isEmpty,
                inside.allSatisfy({ PercentEncoding.hexValue($0) != nil || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") })
            else { throw refuse("its IPv6 host is not an IPv6 address") }
            return String(decoding: host, as: UTF8.self)
        }
        var labelLength = 0
        for byte in host {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
                labelLength += 1
            case UInt8(ascii: "."):
                guard labelLength > 0 else { throw refuse("its host has an empty label") }
                labelLength = 0
            default:
                throw refuse("its host contains \"\(Character(Unicode.Scalar(byte)))\", which no domain name does")
            }
        }
        guard labelLength > 0 else { throw refuse("its host has an empty label") }
        return String(decoding: host, as: UTF8.self)
    }
}

/// A link that is not a web link Waypost can match, with the reason.
public struct WebLinkError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The link as given.
    public let url: String
    /// Why it is refused, for people.
    public let reason: String

    public var description: String { "\(url): \(reason)" }
}
