/// Why a handoff could not be sent or an offer's URL not read, with the offending value. Values from
/// the URL are shown as `OutsideText` shows them: the message goes to logs and to the caller.
public enum HandoffError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Not `waypost-handoff:v1/…` (the start of what came, at most 64 bytes).
    case notAHandoffURL(String)
    /// The URL is over `Limits.urlBytes` (its length).
    case urlTooLarge(bytes: Int)
    /// Not base64url, or not the payload's JSON (the decoder's words).
    case malformed(String)
    /// The JSON is not UTF-8 (UTF-16, UTF-32, a stray byte), or holds a zero byte: the offset of the first.
    case notUTF8(offset: Int)
    /// The JSON reads, but is not the one form the sender's encoder writes (sorted keys, each once,
    /// no spaces, numbers and escapes as written): where it first differs from that form.
    case notCanonical(offset: Int)
    /// A text holds a character no activity may carry there (NUL or a non-character anywhere; a
    /// control character in a field): where, and the character.
    case forbiddenCharacter(String, scalar: UInt32)
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
        case .notAHandoffURL(let start): "not a Waypost handoff URL: \(OutsideText.shown(start, limit: 64))"
        case .urlTooLarge(let bytes): "the handoff URL is \(bytes) bytes, over \(HandoffPayload.Limits.urlBytes)"
        case .malformed(let why): "a malformed handoff payload: \(OutsideText.shown(why, limit: 300))"
        case .notUTF8(let offset): "the handoff payload is not UTF-8 JSON (byte \(offset))"
        case .notCanonical(let offset):
            "the handoff payload's JSON is not in its canonical form (sorted keys, each once, no spaces, numbers as written); it differs at byte \(offset)"
        case .forbiddenCharacter(let place, let scalar):
            "the handoff's \(OutsideText.shown(place, limit: 120)) holds \(Unicode.Scalar(scalar).map(OutsideText.name) ?? String(scalar)), which it may not carry"
        case .userInfoTooLarge(let bytes):
            "the activity's user info is \(bytes) bytes, over the \(HandoffPayload.Limits.userInfoBytes) a handoff carries"
        case .userInfoTooDeep: "the activity's user info is nested deeper than \(HandoffPayload.Limits.nesting)"
        case .invalidField(let name, let bytes): "the handoff's \(name) is \(bytes) bytes, outside its limits"
        case .unencodable(let key): "the user info value under \"\(OutsideText.shown(key, limit: 120))\" is not a number JSON carries"
        }
    }
}
