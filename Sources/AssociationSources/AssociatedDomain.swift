/// A domain whose association file can be fetched and cached: a DNS host name in ASCII (an IDN in
/// its `xn--` form), lowercased, without a trailing dot.
///
/// It becomes both a URL's host and a cache file's name, so anything else is refused: ports,
/// user-info, paths, IP addresses, empty or over-long labels.
public struct AssociatedDomain: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    public let name: String

    /// - Throws: `DomainNameError` with the text and what is wrong with it.
    public init(_ text: String) throws(DomainNameError) {
        var name = text.lowercased()
        if name.hasSuffix(".") { name.removeLast() }  // the root's dot: shop.example. is shop.example
        func refuse(_ problem: String) -> DomainNameError { DomainNameError(domain: text, problem: problem) }
        guard !name.isEmpty else { throw refuse("it is empty") }
        guard name.utf8.count <= 253 else { throw refuse("it is longer than 253 characters") }
        let labels = name.split(separator: ".", omittingEmptySubsequences: false)
        for label in labels {
            guard !label.isEmpty else { throw refuse("it has an empty label") }
            guard label.utf8.count <= 63 else { throw refuse("the label '\(label)' is longer than 63 characters") }
            for byte in label.utf8 where !Self.isLabelByte(byte) {
                if byte >= 0x80 { throw refuse("it is not ASCII: give an internationalised name in its xn-- form") }
                throw refuse("'\(Character(Unicode.Scalar(byte)))' cannot appear in a host name")
            }
            guard label.first != "-", label.last != "-" else { throw refuse("the label '\(label)' starts or ends with '-'") }
        }
        // A top-level label of digits alone is an IPv4 address (or no domain at all).
        guard labels.last!.contains(where: { !$0.isNumber }) else { throw refuse("it is an IP address, not a domain") }
        self.name = name
    }

    private static func isLabelByte(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            || byte == UInt8(ascii: "-")
    }

    /// Where its association file is served.
    public var associationFileURL: String { "https://\(name)/.well-known/apple-app-site-association" }

    public var description: String { name }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.name < rhs.name }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        do { try self.init(text) } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.description))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(name)
    }
}

/// A text that is not a domain an association file can be fetched for.
public struct DomainNameError: Error, Sendable, Equatable, CustomStringConvertible {
    public let domain: String
    public let problem: String
    public var description: String { "'\(domain)' is not a domain name: \(problem)" }
}
