/// One domain an app claims, as its desktop entry writes it in `X-Waypost-Associated-Domains=`:
/// `shop.example`, or `*.shop.example` for its subdomains (Apple's `applinks:*.shop.example`).
///
/// Apple's rules, kept: a `*.` claim covers subdomains at any depth but not the domain itself
/// ("because of the period after the asterisk": claim `shop.example` too for that), and its
/// association is read from the domain after `*.` (TN3155: a wildcard is served by the root
/// domain's file). A host is covered exactly or by a `*.` claim, never by substring:
/// `shop.example` does not cover `myshop.example` or `shop.example.evil`.
public struct DomainClaim: Sendable, Hashable, CustomStringConvertible {
    /// Lower case, without `*.` and without a trailing dot.
    public let domain: String
    /// Whether the claim is `*.domain`.
    public let includesSubdomains: Bool

    /// - Throws: `DomainClaimError` for text that is not a domain name, optionally after `*.`:
    ///   empty labels, characters no host has, a non-ASCII name (write its `xn--` form), a port,
    ///   an IP address, Apple's `?mode=` suffix, a `*` anywhere else.
    public init(_ text: String) throws(DomainClaimError) {
        func refuse(_ reason: String) -> DomainClaimError { DomainClaimError(claim: text, reason: reason) }
        var name = Substring(text)
        includesSubdomains = name.hasPrefix("*.")
        if includesSubdomains { name = name.dropFirst(2) }
        if name.hasSuffix(".") { name = name.dropLast() }
        guard !name.isEmpty else { throw refuse("it names no domain") }
        if name.unicodeScalars.contains(where: { !$0.isASCII }) {
            throw refuse("it is not ASCII; claim an internationalised domain in its xn-- form")
        }
        if name.contains("?") { throw refuse("Apple's ?mode= suffix has no meaning here; claim the domain alone") }
        if name.contains(":") { throw refuse("a claim names a domain without a port") }
        if name.contains("*") { throw refuse("a * may only open the claim, as *.") }
        let lowered = name.lowercased()
        let labels = lowered.split(separator: ".", omittingEmptySubsequences: false)
        for label in labels {
            guard !label.isEmpty else { throw refuse("it has an empty label") }
            guard label.utf8.count <= 63 else { throw refuse("its label \"\(label)\" is longer than 63 characters") }
            guard label.utf8.allSatisfy({ ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z")) || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") })
            else { throw refuse("its label \"\(label)\" holds a character no domain name has") }
            guard !label.hasPrefix("-"), !label.hasSuffix("-") else { throw refuse("its label \"\(label)\" starts or ends with -") }
        }
        guard lowered.utf8.count <= 253 else { throw refuse("it is longer than 253 characters") }
        if labels.last!.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            throw refuse("a claim names a domain, not an IP address")
        }
        domain = lowered
    }

    /// Whether a link to `host` falls under this claim: the domain itself for a plain claim, any
    /// subdomain of it (and not it) for a `*.` claim. `host` is compared as `WebLink` gives it
    /// (lower case, no trailing dot); other spellings are normalised the same way first.
    public func covers(host: String) -> Bool {
        var host = Substring(host)
        if host.hasSuffix(".") { host = host.dropLast() }
        let bytes = host.utf8
        let domainBytes = domain.utf8
        if !includesSubdomains { return bytes.count == domainBytes.count && Self.equalFolded(bytes, domainBytes) }
        guard bytes.count > domainBytes.count + 1 else { return false }
        let suffixStart = bytes.index(bytes.endIndex, offsetBy: -domainBytes.count)
        return bytes[bytes.index(before: suffixStart)] == UInt8(ascii: ".")
            && Self.equalFolded(bytes[suffixStart...], domainBytes)
    }

    /// The domain whose association file decides for this claim: for `*.x` as for `x`, x's.
    public var associationDomain: String { domain }

    /// The claim as written in a desktop entry.
    public var description: String { includesSubdomains ? "*." + domain : domain }

    private static func equalFolded(_ host: some Collection<UInt8>, _ domain: String.UTF8View) -> Bool {
        zip(host, domain).allSatisfy { pair in
            (pair.0 &- UInt8(ascii: "A") < 26 ? pair.0 | 0x20 : pair.0) == pair.1
        }
    }
}

/// A claim that is not a domain Waypost can match, with the reason.
public struct DomainClaimError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The claim as written.
    public let claim: String
    public let reason: String

    public var description: String { "\"\(claim)\": \(reason)" }
}
