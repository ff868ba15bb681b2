public import ExternalEvents
import FoundationEssentials

/// A user activity handed to another device: what Waypost puts into a `waypost-handoff:` URL, which
/// KDE Connect's share plugin carries and the receiving desktop opens with `xdg-open`.
///
/// The URL is `waypost-handoff:v1/` and the payload's JSON (Foundation's codec, user info in
/// `TypedUserInfo`) in unpadded base64url: letters, digits, `-` and `_` only, which KDE Connect's
/// normalisation in transit (scheme and host lower-cased, unsafe characters percent-encoded) leaves
/// untouched, and whose case lives in the path, which nothing lower-cases.
public struct HandoffPayload: Sendable, Hashable {
    public var activityType: String
    public var title: String?
    public var targetContentIdentifier: String?
    public var webpageURL: String?
    /// Types intact: an integer stays an integer, data stays data (JSON alone would not keep them).
    public var userInfo: [String: UserInfoValue]
    /// The sending device as it names itself (its KDE Connect name), for people: the receiver trusts
    /// the device KDE Connect names, never this.
    public var sendingDevice: String
    /// Unix seconds on the sender's clock.
    public var sentAt: Int64

    public init(
        activityType: String, title: String? = nil, targetContentIdentifier: String? = nil, webpageURL: String? = nil,
        userInfo: [String: UserInfoValue] = [:], sendingDevice: String, sentAt: Int64
    ) {
        (self.activityType, self.title, self.targetContentIdentifier, self.webpageURL) =
            (activityType, title, targetContentIdentifier, webpageURL)
        (self.userInfo, self.sendingDevice, self.sentAt) = (userInfo, sendingDevice, sentAt)
    }

    public static let scheme = "waypost-handoff"
    static let prefix = "waypost-handoff:v1/"

    /// Whether `uri`'s scheme is this payload's, in any case (as the URI grammar reads schemes).
    /// Compared byte by byte: the daemon asks this of every link it is given.
    public static func hasScheme(_ uri: String) -> Bool {
        let expected = "waypost-handoff:".utf8
        var bytes = uri.utf8.makeIterator()
        for byte in expected {
            guard let next = bytes.next() else { return false }
            let folded = next >= UInt8(ascii: "A") && next <= UInt8(ascii: "Z") ? next | 0x20 : next
            guard folded == byte else { return false }
        }
        return true
    }

    /// What Waypost carries. User info: 3 KiB of its typed JSON (Apple recommends 3 KB for Handoff);
    /// each text field 1 KiB (the webpage URL 2 KiB); the whole URL 8 KiB, checked before anything
    /// is decoded (far below the ~128 KiB `xdg-open` could still take).
    public enum Limits {
        public static let userInfoBytes = 3 * 1024
        public static let fieldBytes = 1024
        public static let webpageURLBytes = 2048
        public static let urlBytes = 8 * 1024
        public static let nesting = 16
    }
}

extension HandoffPayload {
    /// The URL to share.
    /// - Throws: `HandoffError` when a field or the user info is over its limit, or a number is NaN
    ///   or infinite: what the receiver would refuse is never sent.
    public func url() throws(HandoffError) -> String {
        let wire = try Wire(self)
        let json: Data
        do { json = try JSONEncoder.sorted.encode(wire) } catch { throw .malformed("\(error)") }
        let url = Self.prefix + Base64URL.encode(Array(json))
        if url.utf8.count > Limits.urlBytes { throw .urlTooLarge(bytes: url.utf8.count) }
        return url
    }

    /// Reads a shared URL strictly: the exact scheme and version, base64url, UTF-8, the JSON's keys and
    /// types, every limit, no NUL nor non-character anywhere. The JSON must be the very bytes the
    /// sender's encoder writes for what it decodes to (decoded, encoded again, compared): so a key
    /// twice, a byte-order mark, spaces or `1e2` for 100 are refused, with no parser of our own.
    /// Bounded work: the size is checked before anything is decoded.
    /// - Throws: `HandoffError` naming what is wrong.
    public init(url: String) throws(HandoffError) {
        let bytes = url.utf8.count
        if bytes > Limits.urlBytes { throw .urlTooLarge(bytes: bytes) }
        // KDE Connect lower-cases the scheme; the rest must be as sent.
        guard url.utf8.count > Self.prefix.utf8.count,
            url.utf8.prefix(Self.prefix.utf8.count).map(Base64URL.lowercased).elementsEqual(Self.prefix.utf8)
        else { throw .notAHandoffURL(String(decoding: url.utf8.prefix(64), as: UTF8.self)) }
        let encoded = url.utf8.dropFirst(Self.prefix.utf8.count)
        guard let json = Base64URL.decode(encoded) else { throw .malformed("not base64url") }
        if let offset = Self.firstNonUTF8(json) { throw .notUTF8(offset: offset) }
        let wire: Wire
        do { wire = try JSONDecoder().decode(Wire.self, from: Data(json)) } catch { throw .malformed("\(error)") }
        let canonical: Data
        do { canonical = try JSONEncoder.sorted.encode(wire) } catch { throw .malformed("\(error)") }
        if let offset = Self.firstDifference(Array(canonical), json) { throw .notCanonical(offset: offset) }
        self = try wire.payload()
    }

    /// Where `bytes` stop being UTF-8 text without a zero byte (a zero byte is UTF-16's or UTF-32's
    /// sign, and JSON has none raw); nil when they are.
    static func firstNonUTF8(_ bytes: [UInt8]) -> Int? {
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        var offset = 0
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar):
                if scalar == "\0" { return offset }
                offset += UTF8.width(scalar)
            case .emptyInput: return nil
            case .error: return offset
            }
        }
    }

    static func firstDifference(_ one: [UInt8], _ other: [UInt8]) -> Int? {
        if let index = zip(one, other).enumerated().first(where: { $0.element.0 != $0.element.1 })?.offset { return index }
        return one.count == other.count ? nil : min(one.count, other.count)
    }
}

/// The payload as JSON: short keys, user info typed.
struct Wire: Codable, Sendable {
    var type: String
    var title: String?
    var target: String?
    var webpage: String?
    var info: [String: TypedUserInfo]
    var device: String
    var sent: Int64

    init(_ payload: HandoffPayload) throws(HandoffError) {
        try Self.check(payload)
        type = payload.activityType
        title = payload.title
        target = payload.targetContentIdentifier
        webpage = payload.webpageURL
        var info: [String: TypedUserInfo] = [:]
        for (key, value) in payload.userInfo { info[key] = try TypedUserInfo(value, key: key) }
        self.info = info
        device = payload.sendingDevice
        sent = payload.sentAt
        let infoBytes: Int
        do { infoBytes = try JSONEncoder.sorted.encode(info).count } catch { throw .malformed("\(error)") }
        if infoBytes > HandoffPayload.Limits.userInfoBytes { throw .userInfoTooLarge(bytes: infoBytes) }
    }

    func payload() throws(HandoffError) -> HandoffPayload {
        let infoBytes: Int
        do { infoBytes = try JSONEncoder.sorted.encode(info).count } catch { throw .malformed("\(error)") }
        if infoBytes > HandoffPayload.Limits.userInfoBytes { throw .userInfoTooLarge(bytes: infoBytes) }
        var userInfo: [String: UserInfoValue] = [:]
        for (key, value) in info { userInfo[key] = try value.value(depth: 1) }
        let payload = HandoffPayload(
            activityType: type, title: title, targetContentIdentifier: target, webpageURL: webpage, userInfo: userInfo,
            sendingDevice: device, sentAt: sent)
        try Self.check(payload)
        return payload
    }

    static func check(_ payload: HandoffPayload) throws(HandoffError) {
        typealias Limits = HandoffPayload.Limits
        let fields: [(String, String?, Int, Bool)] = [
            ("activity type", payload.activityType, Limits.fieldBytes, true),
            ("title", payload.title, Limits.fieldBytes, false),
            ("target content identifier", payload.targetContentIdentifier, Limits.fieldBytes, false),
            ("webpage URL", payload.webpageURL, Limits.webpageURLBytes, false),
            ("sending device", payload.sendingDevice, Limits.fieldBytes, false),
        ]
        for (name, value, limit, required) in fields {
            guard let value else { continue }
            let bytes = value.utf8.count
            if bytes > limit || (required && bytes == 0) { throw .invalidField(name, bytes: bytes) }
            // Control characters would forge lines in a notification or a log.
            if let bad = value.unicodeScalars.first(where: { $0.value < 0x20 || $0.value == 0x7F || Self.cannotCarry($0) }) {
                throw .forbiddenCharacter(name, scalar: bad.value)
            }
        }
        if let webpage = payload.webpageURL, !(webpage.hasPrefix("https://") || webpage.hasPrefix("http://")) {
            throw .invalidField("webpage URL", bytes: webpage.utf8.count)
        }
        if depth(of: .dictionary(payload.userInfo)) > Limits.nesting { throw .userInfoTooDeep }
        for (key, value) in payload.userInfo { try scan(value, key: key) }
    }

    /// NUL cannot travel over D-Bus (an app would never get the activity, and the plan would take it
    /// for the app's refusal); a non-character is no text for any app.
    static func cannotCarry(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "\0" || scalar.properties.isNoncharacterCodePoint
    }

    /// Every string and key of user info, under the top-level `key`.
    static func scan(_ value: UserInfoValue, key: String) throws(HandoffError) {
        if let bad = key.unicodeScalars.first(where: cannotCarry) { throw .forbiddenCharacter("user info key \"\(key)\"", scalar: bad.value) }
        switch value {
        case .string(let text):
            if let bad = text.unicodeScalars.first(where: cannotCarry) { throw .forbiddenCharacter("user info under \"\(key)\"", scalar: bad.value) }
        case .array(let values): for value in values { try scan(value, key: key) }
        case .dictionary(let entries): for (name, value) in entries { try scan(value, key: name) }
        default: break
        }
    }

    static func depth(of value: UserInfoValue) -> Int {
        switch value {
        case .array(let values): 1 + (values.map(depth).max() ?? 0)
        case .dictionary(let entries): 1 + (entries.values.map(depth).max() ?? 0)
        default: 0
        }
    }
}

extension JSONEncoder {
    /// Sorted keys: the same payload is the same URL.
    static var sorted: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}
