@testable import Dispatcher
import Synchronization
import Testing

/// The bounded queue in front of each app, without a bus.
@Suite("delivery queue")
struct DeliveryQueueTests {
    final class Box: Sendable {
        let queue = Mutex(DeliveryQueue())
        let order = Mutex<[Int]>([])
    }

    @Test("64 events are sent at once, 1,024 more wait, the next is Busy; a slot given back goes to a waiter before the pool")
    func bounds() async throws {
        let box = Box()
        for _ in 0..<DeliveryQueue.inFlight { #expect(try box.queue.withLock { try $0.enter(app: "a") }) }
        #expect(try box.queue.withLock { try $0.enter(app: "a") } == false)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<DeliveryQueue.waiting {
                // One at a time, so that the waiters park in index order.
                let (parked, signal) = AsyncStream<Void>.makeStream()
                group.addTask {
                    await withCheckedContinuation { continuation in
                        box.queue.withLock { $0.wait(continuation) }
                        signal.yield()
                    }
                    box.order.withLock { $0.append(index) }
                }
                for await _ in parked { break }
            }
            #expect(throws: DispatchError.busy("1024 events are waiting for a", limit: 1024)) {
                try box.queue.withLock { _ = try $0.enter(app: "a") }
            }
            for _ in 0..<DeliveryQueue.waiting { box.queue.withLock { $0.leave() } }
            try await group.waitForAll()
        }
        #expect(box.order.withLock { $0 }.count == DeliveryQueue.waiting)
        #expect(!box.queue.withLock { $0.isIdle })
        for _ in 0..<DeliveryQueue.inFlight { box.queue.withLock { $0.leave() } }
        #expect(box.queue.withLock { $0.isIdle })
    }
}

@Suite("change rate")
struct ChangeRateTests {
    static let busy = DispatchError.busy(
        "a changes its condition sets faster than 65536 bytes a second, held up to 1 s", limit: 65_536)

    @Test("a burst of changes goes at once; beyond it each waits its share of the rate, up to 1 s; past that, Busy and nothing taken")
    func waits() throws {
        let start = ContinuousClock.now
        var rate = ChangeRate(now: start)
        let change = ChangeRate.bytesPerSecond / 4 - ChangeRate.perChange
        let fits = ChangeRate.burst / (change + ChangeRate.perChange)
        for _ in 0..<fits { #expect(try rate.admit(change, app: "a", now: start) == .zero) }
        // Each change of a quarter of the rate more is a quarter of a second ahead of the refill: four fill the second.
        for quarter in 1...4 { #expect(try rate.admit(change, app: "a", now: start) == .milliseconds(250 * quarter)) }
        #expect(throws: Self.busy) { _ = try rate.admit(0, app: "a", now: start) }
        // A quarter of a second later, a quarter of a second of debt is paid: the next waits a second again.
        #expect(try rate.admit(change, app: "a", now: start + .milliseconds(250)) == .seconds(1))
    }

    @Test("an app that sends each change once the last was answered is held to the rate, and never refused")
    func heldToTheRate() throws {
        let start = ContinuousClock.now
        var rate = ChangeRate(now: start)
        let change = 1024, cost = Double(change + ChangeRate.perChange)
        var now = start
        let accepted = 20_000
        for _ in 0..<accepted { now += try rate.admit(change, app: "a", now: now) }
        let elapsed = now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let granted = Double(ChangeRate.burst) + seconds * Double(ChangeRate.bytesPerSecond)
        #expect(Double(accepted) * cost <= granted + cost)
        #expect(Double(accepted) * cost >= granted - cost)
    }
}
