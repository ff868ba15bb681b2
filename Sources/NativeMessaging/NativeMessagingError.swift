/// Why the host refused a message from the browser (or could not answer): a name the extension
/// can act on (`error` in the reply) and the offending value.
public enum NativeMessagingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A message announced longer than the host's limit; the host answers this and ends.
    case tooLarge(length: Int, limit: Int)
    /// A reply longer than the browser takes.
    case replyTooLarge(length: Int, limit: Int)
    /// Not JSON, not an object, or a value of the wrong type (with the decoder's words).
    case malformed(reason: String)
    /// A `type` the host does not know.
    case unknownType(String)
    /// A key the message's type does not have.
    case unexpectedKey(String, type: String)
    /// A key the message's type needs.
    case missingKey(String, type: String)
    /// A `url` that is not an http or https URL, or a `domain` that is not a domain name.
    case invalidValue(key: String, value: String, reason: String)

    /// The name the reply carries.
    public var name: String {
        switch self {
        case .tooLarge: "message-too-large"
        case .replyTooLarge: "reply-too-large"
        case .malformed: "malformed-message"
        case .unknownType: "unknown-type"
        case .unexpectedKey: "unexpected-key"
        case .missingKey: "missing-key"
        case .invalidValue: "invalid-value"
        }
    }

    public var description: String {
        switch self {
        case .tooLarge(let length, let limit): "a message of \(length) bytes is over the host's limit of \(limit)"
        case .replyTooLarge(let length, let limit): "a reply of \(length) bytes is over the browser's limit of \(limit)"
        case .malformed(let reason): "not a message: \(reason)"
        case .unknownType(let type): "no message has the type \"\(type)\""
        case .unexpectedKey(let key, let type): "a \"\(type)\" message has no key \"\(key)\""
        case .missingKey(let key, let type): "a \"\(type)\" message needs \"\(key)\""
        case .invalidValue(let key, let value, let reason): "\(key) \"\(value.prefix(200))\": \(reason)"
        }
    }
}
