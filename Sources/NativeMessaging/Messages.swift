import FoundationEssentials

/// A message from the extension, checked against its schema: an object with an integer `id` (echoed
/// in the reply), a known `type`, exactly the keys that type has, and values of the right kind.
public struct BrowserRequest: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// The host patterns whose links an app may own, and the domains kept in the browser.
        case ownedDomains
        /// Who owns this exact URL (nobody: the click proceeds in the browser).
        case owner(url: String)
        /// Hand the URL to the app that owns it; when none does, say so (the tab then navigates).
        case open(url: String)
        /// "Keep opening DOMAIN in the browser", and its undoing.
        case keepInBrowser(domain: String)
        case undoKeep(domain: String)
    }

    public let id: Int
    public let kind: Kind

    public init(id: Int, kind: Kind) {
        self.id = id
        self.kind = kind
    }

    /// - Throws: `NativeMessagingError` naming what breaks the schema.
    public init(json: [UInt8]) throws(NativeMessagingError) {
        let fields: [String: Field]
        do { fields = try JSONDecoder().decode([String: Field].self, from: Data(json)) } catch {
            throw .malformed(reason: Self.reason(error))
        }
        guard case .string(let type)? = fields["type"] else { throw .missingKey("type", type: "any") }
        let keys: [String] = switch type {
        case "owned-domains": []
        case "owner", "open": ["url"]
        case "keep-in-browser", "undo-keep": ["domain"]
        default: throw .unknownType(type)
        }
        for key in fields.keys.sorted() where !(["id", "type"] + keys).contains(key) { throw .unexpectedKey(key, type: type) }
        guard let idField = fields["id"] else { throw .missingKey("id", type: type) }
        guard case .integer(let id) = idField else { throw .invalidValue(key: "id", value: "\(idField)", reason: "not an integer") }
        var values: [String: String] = [:]
        for key in keys {
            guard let field = fields[key] else { throw .missingKey(key, type: type) }
            guard case .string(let value) = field else { throw .invalidValue(key: key, value: "\(field)", reason: "not a string") }
            values[key] = value
        }
        self.id = id
        switch type {
        case "owner", "open":
            let url = values["url"]!
            let lowered = url.prefix(8).lowercased()
            guard lowered.hasPrefix("https://") || lowered.hasPrefix("http://") else {
                throw .invalidValue(key: "url", value: url, reason: "not an http or https URL")
            }
            kind = type == "owner" ? .owner(url: url) : .open(url: url)
        case "keep-in-browser": kind = .keepInBrowser(domain: values["domain"]!)
        case "undo-keep": kind = .undoKeep(domain: values["domain"]!)
        default: kind = .ownedDomains
        }
    }

    /// One value of a message's object: the kinds the schema tells apart.
    enum Field: Decodable, Equatable, CustomStringConvertible {
        case string(String)
        case integer(Int)
        case other(String)

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let text = try? container.decode(String.self) {
                self = .string(text)
            } else if let number = try? container.decode(Int.self) {
                self = .integer(number)
            } else if container.decodeNil() {
                self = .other("null")
            } else if let flag = try? container.decode(Bool.self) {
                self = .other("\(flag)")
            } else if (try? container.decode(Double.self)) != nil {
                self = .other("a fractional number")
            } else {
                self = .other("an array or an object")
            }
        }

        var description: String {
            switch self {
            case .string(let text): text
            case .integer(let number): "\(number)"
            case .other(let text): text
            }
        }
    }

    private static func reason(_ error: any Error) -> String {
        switch error as? DecodingError {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .keyNotFound(_, let context), .dataCorrupted(let context):
            context.debugDescription
        default: "\(error)"
        }
    }
}

/// What the host sends the extension: a reply (with the request's `id`) or, without an `id`, the
/// owned domains pushed again after they changed. Absent fields are left out.
public struct HostMessage: Sendable, Equatable, Encodable {
    public var id: Int?
    public var type: String
    public var url: String?
    public var domain: String?
    /// `owned-domains`: host patterns (`shop.example`, `*.shop.example`) whose links may go to an app.
    public var domains: [String]?
    /// Domains the user keeps in the browser (Waypost's rule files).
    public var kept: [String]?
    /// `owner` and `open`: whether an app owns the URL, and which (its desktop-file id and name).
    public var owned: Bool?
    public var app: String?
    public var name: String?
    /// `open`: whether the app acknowledged the link.
    public var opened: Bool?
    /// Why not, for people (the dispatcher's reason, or the daemon's silence).
    public var reason: String?
    /// `error`: the name (`NativeMessagingError.name`) and the sentence.
    public var error: String?
    public var message: String?

    public init(id: Int?, type: String) {
        self.id = id
        self.type = type
    }

    /// The answer to a refused message.
    public init(id: Int?, refusing error: NativeMessagingError) {
        self.init(id: id, type: "error")
        self.error = error.name
        message = error.description
    }

    /// As JSON (sorted keys, so the same message is the same bytes).
    public var json: [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Strings, integers and booleans always encode.
        return Array(try! encoder.encode(self))
    }
}
