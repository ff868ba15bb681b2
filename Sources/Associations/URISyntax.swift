/// What every link must be before anything reads it, checked in one place for the dispatcher's
/// links and for web links: not empty, at most `maximumBytes`, an RFC 3986 scheme before its first
/// colon, and no raw space or control byte (a link is never typed with them raw).
///
/// Here, in the module that imports nothing of ours, so that `WebLink` and the dispatcher (which
/// imports this module) share it.
public enum URISyntax {
    /// Larger links are refused: no browser makes one, and each is copied into several messages.
    public static let maximumBytes = 64 * 1024

    /// The index of the link's first colon, which ends its scheme.
    /// - Throws: `URISyntaxError` naming the link: empty, oversized, without a scheme, with a
    ///   scheme RFC 3986 does not allow, or holding a space or control byte (which it names).
    public static func schemeEnd(of uri: String) throws(URISyntaxError) -> Int {
        func refuse(_ reason: String) -> URISyntaxError { URISyntaxError(uri: uri, reason: reason) }
        if uri.isEmpty { throw refuse("the URI is empty") }
        if uri.utf8.count > maximumBytes {
            throw refuse("the URI is \(uri.utf8.count) bytes; at most \(maximumBytes) are accepted")
        }
        // Plain loops over the UTF-8 bytes' span: this runs for every link opened.
        let bytes = uri.utf8.span
        var colon = 0
        while colon < bytes.count, bytes[colon] != UInt8(ascii: ":") { colon += 1 }
        guard colon < bytes.count, colon != 0 else {
            throw refuse("it has no scheme (an absolute URI starts with one, like https: or myapp:)")
        }
        var schemeIsValid = isLetter(bytes[0])
        for index in 1..<colon where !isSchemeByte(bytes[index]) { schemeIsValid = false }
        guard schemeIsValid else {
            throw refuse("\"\(String(decoding: uri.utf8.prefix(colon), as: UTF8.self))\" is not a URI scheme")
        }
        for index in bytes.indices where bytes[index] <= 0x20 || bytes[index] == 0x7F {
            let bad = bytes[index]
            let hex = (bad < 0x10 ? "0" : "") + String(bad, radix: 16, uppercase: true)
            throw refuse("it contains the control or space byte 0x\(hex); write it as %\(hex)")
        }
        return colon
    }

    /// The link's scheme, lowercased.
    /// - Throws: `URISyntaxError` as `schemeEnd(of:)` does.
    public static func scheme(of uri: String) throws(URISyntaxError) -> String {
        let colon = try schemeEnd(of: uri)
        // Scheme bytes are ASCII letters, digits, + - and .: setting 0x20 lowercases the letters only.
        // Written into the string's own storage: decoding a lazy map goes through a dynamic cast.
        let bytes = uri.utf8.span
        return String(unsafeUninitializedCapacity: colon) { scheme in
            for index in 0..<colon { scheme[index] = isLetter(bytes[index]) ? bytes[index] | 0x20 : bytes[index] }
            return colon
        }
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
    }

    private static func isSchemeByte(_ byte: UInt8) -> Bool {
        isLetter(byte) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
            || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
    }
}

/// A link that is not a URI `URISyntax` accepts.
public struct URISyntaxError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The link as given.
    public let uri: String
    /// Why it is refused, for people.
    public let reason: String

    public var description: String { "\(uri): \(reason)" }
}
