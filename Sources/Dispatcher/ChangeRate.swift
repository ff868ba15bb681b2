/// How fast one app may change its condition sets: a token bucket of condition bytes (each change
/// counting `perChange` more, so that empty sets are not free), refilled at `bytesPerSecond`, at most
/// `burst` saved up. Over it, a change is refused `Busy` at once and changes nothing: an app that
/// churns its sets as fast as it can then takes a bounded share of the daemon, not all of it
/// (Benchmarks/stress/churn.py).
struct ChangeRate: Sendable {
    static let bytesPerSecond = 256 * 1024
    /// Twice an app's whole condition budget, so that setting all of it at once is never refused.
    static let burst = 2 * 1024 * 1024
    static let perChange = 32

    private var tokens = Double(Self.burst)
    private var refilled: ContinuousClock.Instant

    init(now: ContinuousClock.Instant) { refilled = now }

    /// Takes `bytes` (plus `perChange`) from the bucket.
    /// - Throws: `busy` when the bucket holds fewer.
    mutating func spend(_ bytes: Int, app: String, now: ContinuousClock.Instant) throws(DispatchError) {
        let elapsed = now - refilled
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        tokens = min(Double(Self.burst), tokens + seconds * Double(Self.bytesPerSecond))
        refilled = now
        let cost = Double(bytes + Self.perChange)
        guard tokens >= cost else {
            throw .busy("\(app) changes its condition sets faster than \(Self.bytesPerSecond) bytes a second", limit: Self.bytesPerSecond)
        }
        tokens -= cost
    }
}
