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

/// Why a handoff could not be sent or an offer's URL not read, with the offending value.
public enum HandoffError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Not `waypost-handoff:v1/…` (the start of what came, at most 64 bytes).
    case notAHandoffURL(String)
    /// The URL is over `Limits.urlBytes` (its length).
    case urlTooLarge(bytes: Int)
    /// Not base64url, or not the payload's JSON (the decoder's words).
    case malformed(String)
    /// User info over `Limits.userInfoBytes` as typed JSON (its size).
    case userInfoTooLarge(bytes: Int)
    /// User info nested deeper than `Limits.nesting`.
    case userInfoTooDeep
    /// A field over its limit, or empty where it must not be (the field's name and size).
    case invalidField(String, bytes: Int)
    /// A number JSON cannot carry (NaN, infinity), under this user info key.
    case unencodable(String)

    public var description: String {
        switch self {
        case .notAHandoffURL(let start): "not a Waypost handoff URL: \(start)"
        case .urlTooLarge(let bytes): "the handoff URL is \(bytes) bytes, over \(HandoffPayload.Limits.urlBytes)"
        case .malformed(let why): "a malformed handoff payload: \(why)"
        case .userInfoTooLarge(let bytes):
            "the activity's user info is \(bytes) bytes, over the \(HandoffPayload.Limits.userInfoBytes) a handoff carries"
        case .userInfoTooDeep: "the activity's user info is nested deeper than \(HandoffPayload.Limits.nesting)"
        case .invalidField(let name, let bytes): "the handoff's \(name) is \(bytes) bytes, outside its limits"
        case .unencodable(let key): "the user info value under \"\(key)\" is not a number JSON carries"
        }
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

    /// Reads a shared URL strictly: the exact scheme and version, base64url, the JSON's keys and
    /// types, every limit. Bounded work: the size is checked before anything is decoded.
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
        let wire: Wire
        do { wire = try JSONDecoder().decode(Wire.self, from: Data(json)) } catch { throw .malformed("\(error)") }
        self = try wire.payload()
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
            if value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
                throw .invalidField(name, bytes: bytes)
            }
        }
        if let webpage = payload.webpageURL, !(webpage.hasPrefix("https://") || webpage.hasPrefix("http://")) {
            throw .invalidField("webpage URL", bytes: webpage.utf8.count)
        }
        if depth(of: .dictionary(payload.userInfo)) > Limits.nesting { throw .userInfoTooDeep }
    }

    static func depth(of value: UserInfoValue) -> Int {
        switch value {
        case .array(let values): 1 + (values.map(depth).max() ?? 0)
        case .dictionary(let entries): 1 + (entries.values.map(depth).max() ?? 0)
        default: 0
        }
    }
}

/// One user info value with its type spelled out: `{"s": "…"}`, `{"i": 1}`, `{"d": 1.0}`, `{"b": true}`,
/// `{"x": "base64url"}` (data), `{"a": […]}`, `{"m": {…}}`. Exactly one key.
indirect enum TypedUserInfo: Codable, Sendable {
    case string(String), integer(Int64), double(Double), bool(Bool), data(String)
    case array([TypedUserInfo]), dictionary([String: TypedUserInfo])

    init(_ value: UserInfoValue, key: String) throws(HandoffError) {
        switch value {
        case .string(let value): self = .string(value)
        case .integer(let value): self = .integer(value)
        case .double(let value):
            guard value.isFinite else { throw .unencodable(key) }
            self = .double(value)
        case .bool(let value): self = .bool(value)
        case .data(let bytes): self = .data(Base64URL.encode(bytes))
        case .array(let values):
            var typed: [TypedUserInfo] = []
            for value in values { typed.append(try TypedUserInfo(value, key: key)) }
            self = .array(typed)
        case .dictionary(let entries):
            var typed: [String: TypedUserInfo] = [:]
            for (name, value) in entries { typed[name] = try TypedUserInfo(value, key: key) }
            self = .dictionary(typed)
        }
    }

    func value(depth: Int) throws(HandoffError) -> UserInfoValue {
        if depth > HandoffPayload.Limits.nesting { throw .userInfoTooDeep }
        switch self {
        case .string(let value): return .string(value)
        case .integer(let value): return .integer(value)
        case .double(let value): return .double(value)
        case .bool(let value): return .bool(value)
        case .data(let text):
            guard let bytes = Base64URL.decode(text.utf8) else { throw .malformed("user info data is not base64url") }
            return .data(bytes)
        case .array(let values):
            var result: [UserInfoValue] = []
            for value in values { result.append(try value.value(depth: depth + 1)) }
            return .array(result)
        case .dictionary(let entries):
            var result: [String: UserInfoValue] = [:]
            for (key, value) in entries { result[key] = try value.value(depth: depth + 1) }
            return .dictionary(result)
        }
    }

    private enum Kind: String, CodingKey { case s, i, d, b, x, a, m }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Kind.self)
        guard container.allKeys.count == 1, let kind = container.allKeys.first else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "a typed value has exactly one key"))
        }
        switch kind {
        case .s: self = .string(try container.decode(String.self, forKey: kind))
        case .i: self = .integer(try container.decode(Int64.self, forKey: kind))
        case .d: self = .double(try container.decode(Double.self, forKey: kind))
        case .b: self = .bool(try container.decode(Bool.self, forKey: kind))
        case .x: self = .data(try container.decode(String.self, forKey: kind))
        case .a: self = .array(try container.decode([TypedUserInfo].self, forKey: kind))
        case .m: self = .dictionary(try container.decode([String: TypedUserInfo].self, forKey: kind))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Kind.self)
        switch self {
        case .string(let value): try container.encode(value, forKey: .s)
        case .integer(let value): try container.encode(value, forKey: .i)
        case .double(let value): try container.encode(value, forKey: .d)
        case .bool(let value): try container.encode(value, forKey: .b)
        case .data(let value): try container.encode(value, forKey: .x)
        case .array(let values): try container.encode(values, forKey: .a)
        case .dictionary(let entries): try container.encode(entries, forKey: .m)
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
