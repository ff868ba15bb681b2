/// Why a domain's association file was not verified, with the offending value.
///
/// Two kinds, which the cache treats differently (`isAnswerFromSite`): the site's own answer over
/// a verified connection (a status, a redirect, a wrong type, too large, a file that does not name
/// the app) replaces what was cached; anything else (the network, the certificate, the client)
/// says nothing about the site's file, so a domain verified earlier keeps its last good copy.
public enum VerificationFailure: Error, Sendable, Equatable, Hashable, Codable, CustomStringConvertible {
    /// libcurl could not be loaded or refused an option the fetch needs.
    case clientUnavailable(reason: String)
    /// The host name did not resolve.
    case nameResolution(host: String, message: String)
    /// No connection to the host (refused, unreachable).
    case connection(host: String, message: String)
    /// The TLS handshake failed: most often a certificate that is expired, from an untrusted
    /// authority, or for another name.
    case certificate(host: String, message: String)
    /// The connection or the whole transfer took longer than the fetcher's limits.
    case timeout(host: String, message: String)
    /// The connection broke or the reply was not HTTP.
    case transfer(host: String, message: String)
    /// A status other than 200 and not a redirect.
    case httpStatus(status: Int)
    /// A 3xx answer: Apple's rule, and ours, is to follow none.
    case redirect(status: Int, location: String?)
    /// A `Content-Type` other than `application/json` (nil: none given).
    case contentType(served: String?)
    /// The body went past `limit` bytes; the transfer was stopped there.
    case oversize(limit: Int)
    /// The file was served properly but the validator refused it (malformed, or it does not name
    /// the app), with the validator's message.
    case invalidFile(message: String)

    /// True when the site answered over a verified connection, so the answer replaces the last
    /// good copy; false for failures that leave the site's file unknown (offline, say).
    public var isAnswerFromSite: Bool {
        switch self {
        case .redirect, .contentType, .oversize, .invalidFile: true
        // Server errors, "try later" and a request timeout are the site being unwell, not its file.
        case .httpStatus(let status): !(500...599).contains(status) && status != 408 && status != 429
        case .clientUnavailable, .nameResolution, .connection, .certificate, .timeout, .transfer: false
        }
    }

    public var description: String {
        switch self {
        case .clientUnavailable(let reason): "the HTTPS client (libcurl) is unavailable: \(reason)"
        case .nameResolution(let host, let message): "\(host) did not resolve: \(message)"
        case .connection(let host, let message): "no connection to \(host): \(message)"
        case .certificate(let host, let message): "TLS with \(host) failed (certificate): \(message)"
        case .timeout(let host, let message): "\(host) took too long: \(message)"
        case .transfer(let host, let message): "the transfer from \(host) failed: \(message)"
        case .httpStatus(let status): "the association file was answered with HTTP status \(status)"
        case .redirect(let status, let location):
            "the association file was redirected (HTTP \(status)) to \(location ?? "no location"); redirects are not followed"
        case .contentType(let served):
            "the association file was served as \(served.map { "'\($0)'" } ?? "no content type"), not application/json"
        case .oversize(let limit): "the association file is larger than \(limit) bytes (oversize)"
        case .invalidFile(let message): "the association file was refused: \(message)"
        }
    }
}
