import Glibc
import Logging

/// The daemon's start-up steps in the verbose log, each with the milliseconds since `run()` began
/// and the CLOCK_MONOTONIC time (to line them up with a benchmark's): where a cold first link's
/// time goes (Benchmarks/README.md, bench-cold).
struct StartupTimeline: Sendable {
    let logger: Logger
    let began = Self.now()

    func mark(_ step: String) {
        let now = Self.now()
        logger.info("start-up: \(step) at \(Double((now - began) / 1000) / 1000) ms (monotonic \(now / 1000) µs)")
    }

    private static func now() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }
}
