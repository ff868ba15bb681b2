import Dispatch

/// Fetches `https://DOMAIN/.well-known/apple-app-site-association` through libcurl, by the rules
/// Apple's CDN follows, on a thread of its own.
///
/// The rules: HTTPS only, with the system's certificate authorities and the host name checked
/// (nothing can turn that off); no redirect followed (a 3xx is a failure naming where it led);
/// status 200 only; `Content-Type: application/json`, parameters allowed; at most 128 KiB (the
/// transfer stops there); connecting within `connectTimeout`, all done within `totalTimeout`.
/// Name resolution, proxies (`https_proxy`) and the CA bundle are the system's, as libcurl sets them.
///
/// Each transfer blocks a thread of the fetcher's concurrent queue, never the caller's (nor a Swift
/// concurrency thread), so that several run at once (`Verifier.verify(_:)` bounds how many); a fetch
/// cannot be cancelled, only bounded by the timeouts.
public final class AssociationFetcher: Sendable {
    /// Apple's limit for an association file.
    public static let sizeLimit = 128 << 10

    public struct Limits: Sendable, Equatable {
        /// Seconds to establish TCP and TLS (name resolution included).
        public var connectTimeout: Double
        /// Seconds for the whole transfer.
        public var totalTimeout: Double

        public init(connectTimeout: Double, totalTimeout: Double) {
            self.connectTimeout = connectTimeout
            self.totalTimeout = totalTimeout
        }

        /// 5 s to connect, 10 s in all: a site that cannot answer a small file in that time is
        /// treated as unreachable, and retried later.
        public static let standard = Limits(connectTimeout: 5, totalTimeout: 10)
    }

    public let limits: Limits
    private let queue = DispatchQueue(label: "io.waypost.association-fetcher", attributes: .concurrent)

    public init(limits: Limits = .standard) {
        self.limits = limits
    }

    /// The domain's association file and its `Cache-Control` max-age, unvalidated.
    /// - Throws: `VerificationFailure` with the reason: name resolution, connection, certificate,
    ///   timeout, transfer, HTTP status, redirect, content type, oversize, or libcurl missing.
    public func fetch(_ domain: AssociatedDomain) async throws(VerificationFailure) -> FetchedFile {
        let limits = limits
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<FetchedFile, VerificationFailure>, Never>) in
            queue.async { continuation.resume(returning: CurlTransfer.fetch(domain, limits: limits)) }
        }
        return try result.get()
    }
}

/// A file fetched from a domain, not yet validated.
public struct FetchedFile: Sendable, Equatable {
    public let body: [UInt8]
    /// Seconds its `Cache-Control` allows it to be reused, if it says.
    public let maxAge: Int?

    public init(body: [UInt8], maxAge: Int?) {
        self.body = body
        self.maxAge = maxAge
    }
}
