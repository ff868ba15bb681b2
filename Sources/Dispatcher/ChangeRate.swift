/// How fast one app may change its condition sets: a token bucket of condition bytes (each change
/// counting `perChange` more, so that empty sets are not free), refilled at `bytesPerSecond`, at most
/// `burst` saved up. A change over it is not refused but held: `admit` takes its bytes ahead of the
/// refill and says how long to wait before making it, so an app that waits for its replies is held to
/// the rate and spends no CPU meanwhile, where a fast refusal had it send again at once, thousands of
/// times a second (Benchmarks/stress/churn.py). The wait is bounded: one that would pass `longestWait`
/// is refused `Busy` and takes nothing. Pure: the caller gives the time, and waits (`Dispatcher.setModifiers`).
struct ChangeRate: Sendable {
    /// Sustained: an app that changes its sets as fast as it can takes this, and no more, of the
    /// daemon and the bus (at 64 KiB, another app's `Open` p99 stays within 1.5× of idle on 2 cores;
    /// at 256 KiB it was 2–2.8×: docs/delivery.md). Hundreds of ordinary changes a second.
    static let bytesPerSecond = 64 * 1024
    /// An app's whole condition budget, so that setting all of it at once (at start) is never held.
    static let burst = Budgets.conditionBytesPerApp
    static let perChange = 32
    /// The longest a change is held; beyond it, `Busy`. Well under a D-Bus call's default timeout (25 s).
    static let longestWait = Duration.seconds(1)

    /// Bytes saved up; below zero, bytes taken ahead of the refill by changes that are waiting.
    private var tokens = Double(Self.burst)
    private var refilled: ContinuousClock.Instant

    init(now: ContinuousClock.Instant) { refilled = now }

    /// Takes `bytes` (plus `perChange`) from the bucket, ahead of the refill if need be.
    /// - Returns: how long to wait before making the change: zero when the bucket held them.
    /// - Throws: `busy` when the wait would be longer than `longestWait`; then nothing is taken.
    mutating func admit(_ bytes: Int, app: String, now: ContinuousClock.Instant) throws(DispatchError) -> Duration {
        let elapsed = now - refilled
        let seconds = elapsed / .seconds(1)
        tokens = min(Double(Self.burst), tokens + seconds * Double(Self.bytesPerSecond))
        refilled = now
        let left = tokens - Double(bytes + Self.perChange)
        let wait = left >= 0 ? 0 : -left / Double(Self.bytesPerSecond)
        let longest = Self.longestWait / .seconds(1)
        guard wait <= longest else {
            throw .busy(
                "\(app) changes its condition sets faster than \(Self.bytesPerSecond) bytes a second, held up to \(Int(longest)) s",
                limit: Self.bytesPerSecond)
        }
        tokens = left
        return .nanoseconds(Int64((wait * 1e9).rounded(.up)))
    }
}
