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
    @Test("an app may set a burst of conditions at once, then as many bytes a second as the rate allows; over it, Busy")
    func rate() throws {
        let start = ContinuousClock.now
        var rate = ChangeRate(now: start)
        let change = 64 * 1024
        let fits = ChangeRate.burst / (change + ChangeRate.perChange)
        for _ in 0..<fits { try rate.spend(change, app: "a", now: start) }
        #expect(throws: DispatchError.busy("a changes its condition sets faster than 262144 bytes a second", limit: 262_144)) {
            try rate.spend(change, app: "a", now: start)
        }
        // A quarter of a second later, a quarter of the rate is back: 64 KiB and change.
        try rate.spend(change - ChangeRate.perChange, app: "a", now: start + .milliseconds(250) + .milliseconds(1))
        #expect(throws: DispatchError.self) { try rate.spend(change, app: "a", now: start + .milliseconds(252)) }
    }
}
