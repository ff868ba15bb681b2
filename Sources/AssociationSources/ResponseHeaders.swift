/// The header fields of one HTTP response, as libcurl hands them over: one `Name: value` line each.
///
/// Only what verification reads: the content type and how long the answer may be cached.
struct ResponseHeaders: Sendable, Equatable {
    /// Names lowercased, values trimmed, in the order received.
    private(set) var fields: [(name: String, value: String)] = []

    init() {}

    init(lines: [String]) {
        for line in lines { add(line: line) }
    }

    /// Takes one line; a status line (`HTTP/1.1 100 Continue` before the real answer) starts over.
    mutating func add(line: String) {
        if line.hasPrefix("HTTP/") {
            fields.removeAll()
            return
        }
        guard let colon = line.firstIndex(of: ":") else { return }  // the blank line that ends the headers
        let name = line[..<colon].trimmingWhitespace.lowercased()
        fields.append((name, String(line[line.index(after: colon)...].trimmingWhitespace)))
    }

    func values(of name: String) -> [String] { fields.filter { $0.name == name }.map(\.value) }

    /// The `Content-Type` value as served.
    var contentType: String? { values(of: "content-type").last }

    /// `Content-Type` is `application/json`, parameters (`; charset=utf-8`) allowed.
    var isJSON: Bool {
        guard let contentType else { return false }
        let mediaType = contentType.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)[0]
        return mediaType.trimmingWhitespace.lowercased() == "application/json"
    }

    /// Seconds the answer may be reused by `Cache-Control` (RFC 9111): the smallest `max-age` of
    /// all its fields, 0 for `no-cache` or `no-store`, nil when it says neither. `s-maxage` is for
    /// shared caches, which this is not.
    var maxAge: Int? {
        var result: Int?
        for value in values(of: "cache-control") {
            for directive in value.split(separator: ",") {
                let parts = directive.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let name = parts[0].trimmingWhitespace.lowercased()
                let seconds: Int?
                switch name {
                case "no-cache", "no-store": seconds = 0
                case "max-age" where parts.count == 2: seconds = Self.deltaSeconds(parts[1])
                default: seconds = nil
                }
                if let seconds { result = min(result ?? seconds, seconds) }
            }
        }
        return result
    }

    /// RFC 9111's delta-seconds, quoted or not; larger than 2^31 means 2^31 (its section 1.2.2).
    private static func deltaSeconds(_ text: Substring) -> Int? {
        var digits = text.trimmingWhitespace
        if digits.count >= 2, digits.first == "\"", digits.last == "\"" { digits = digits.dropFirst().dropLast() }
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return digits.count > 10 ? 1 << 31 : min(Int(digits)!, 1 << 31)
    }

    static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.fields.elementsEqual(rhs.fields) { $0.name == $1.name && $0.value == $1.value }
    }
}

extension StringProtocol {
    /// Without the spaces, tabs and line ends around it.
    var trimmingWhitespace: Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" || $0 == "\r\n" }
        let string = self[...]
        guard let first = string.firstIndex(where: { !isSpace($0) }), let last = string.lastIndex(where: { !isSpace($0) })
        else { return Substring() }
        return Substring(string[first...last])
    }
}
