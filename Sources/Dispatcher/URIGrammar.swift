import Associations

/// The checks a URI passes before routing (`URISyntax`), refused as the dispatcher's `InvalidURI`.
enum URIGrammar {
    /// The URI's scheme, lowercased.
    /// - Throws: `DispatchError.invalidURI` with `URISyntax`'s reason.
    static func scheme(of uri: String) throws(DispatchError) -> String {
        do { return try URISyntax.scheme(of: uri) } catch { throw .invalidURI(uri, reason: error.reason) }
    }
}
