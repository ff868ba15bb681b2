@testable import Dispatcher
import Testing

@Suite("refusal lines")
struct RefusalLinesTests {
    @Test("the first refusals of a second are logged; the rest are counted and told with the next line logged")
    func countsAFlood() {
        let start = ContinuousClock.now
        var lines = RefusalLines(now: start)
        for _ in 0..<RefusalLines.perSecond { #expect(lines.admit(now: start) == .log(unlogged: 0)) }
        for _ in 0..<1000 { #expect(lines.admit(now: start + .milliseconds(999)) == .count) }
        #expect(lines.admit(now: start + .seconds(1)) == .log(unlogged: 1000))
        #expect(lines.admit(now: start + .seconds(1)) == .log(unlogged: 0))
    }

    @Test("refusals at an ordinary pace are each logged")
    func ordinaryPace() {
        var now = ContinuousClock.now
        var lines = RefusalLines(now: now)
        for _ in 0..<200 {
            now += .milliseconds(100)
            #expect(lines.admit(now: now) == .log(unlogged: 0))
        }
    }
}
