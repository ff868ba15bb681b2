public import FoundationEssentials

/// How often a domain is checked again, and how long a good copy outlives failed checks.
///
/// The standard figures: a verified file is fetched again after its `Cache-Control: max-age`,
/// kept between an hour and a week (a week when the site says nothing), as Apple's CDN re-checks
/// about weekly; a refused file (404, wrong app, ...) is retried after a day; a network failure
/// after an hour. A verified copy keeps being served through network failures for 30 days after
/// its last successful verification, then the domain's links go to the browser until it verifies.
public struct VerificationPolicy: Sendable, Equatable {
    public var minimumInterval: TimeInterval
    public var reverifyInterval: TimeInterval
    public var retryAfterRefusal: TimeInterval
    public var retryAfterNetworkFailure: TimeInterval
    public var keepOfflineFor: TimeInterval

    public init(
        minimumInterval: TimeInterval, reverifyInterval: TimeInterval, retryAfterRefusal: TimeInterval,
        retryAfterNetworkFailure: TimeInterval, keepOfflineFor: TimeInterval
    ) {
        self.minimumInterval = minimumInterval
        self.reverifyInterval = reverifyInterval
        self.retryAfterRefusal = retryAfterRefusal
        self.retryAfterNetworkFailure = retryAfterNetworkFailure
        self.keepOfflineFor = keepOfflineFor
    }

    public static let standard = VerificationPolicy(
        minimumInterval: hour, reverifyInterval: 7 * day, retryAfterRefusal: day, retryAfterNetworkFailure: hour,
        keepOfflineFor: 30 * day)

    private static let hour: TimeInterval = 3600
    private static let day: TimeInterval = 24 * hour

    /// How long a verified file is trusted before the next check: `max-age` bounded to
    /// `minimumInterval...reverifyInterval`, `reverifyInterval` without one.
    public func freshness(maxAge: Int?) -> TimeInterval {
        guard let maxAge else { return reverifyInterval }
        return min(max(TimeInterval(maxAge), minimumInterval), reverifyInterval)
    }
}
