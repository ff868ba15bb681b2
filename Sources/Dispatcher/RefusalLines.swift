/// How many refusals a second the log is told one line each: the first `perSecond` of each second;
/// the rest are counted and told in one line when the next is logged, so that a flood of bad calls
/// (search words over the bound, malformed offers) costs the daemon a counter, not a line each,
/// and the log keeps room for everyone else's. Pure: the caller gives the time.
struct RefusalLines: Sendable {
    static let perSecond = 20

    private var second: ContinuousClock.Instant
    private var logged = 0
    private var unlogged = 0

    init(now: ContinuousClock.Instant) { second = now }

    enum Verdict: Equatable, Sendable {
        /// Log the line; `unlogged` refusals before it were not (say so with it when non-zero).
        case log(unlogged: Int)
        case count
    }

    mutating func admit(now: ContinuousClock.Instant) -> Verdict {
        if now - second >= .seconds(1) {
            second = now
            logged = 0
        }
        guard logged < Self.perSecond else {
            unlogged += 1
            return .count
        }
        logged += 1
        defer { unlogged = 0 }
        return .log(unlogged: unlogged)
    }
}
