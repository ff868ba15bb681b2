import Synchronization

/// One live subscription: how to hand it a signal and how to end it.
struct Subscription: Sendable {
    let rule: MatchRule
    let deliver: @Sendable (Message) -> Void
    let finish: @Sendable (BusError?) -> Void
}

/// The connection's signal subscriptions, which the loop hands every received signal to.
final class SignalSubscriptions: Sendable {
    private struct State: ~Copyable {
        var entries: [Int: Subscription] = [:]
        var nextID = 0
        var ended = false
    }

    private let state = Mutex(State())

    /// Adds `subscription`; nil once the connection has ended (it would never be finished).
    func add(_ subscription: Subscription) -> Int? {
        state.withLock { state in
            guard !state.ended else { return nil }
            defer { state.nextID += 1 }
            state.entries[state.nextID] = subscription
            return state.nextID
        }
    }

    /// Removes a subscription; nil when it was already gone (removed, or the connection ended).
    @discardableResult
    func remove(_ id: Int) -> Subscription? {
        state.withLock { $0.entries.removeValue(forKey: id) }
    }

    /// Hands a received signal to every subscription whose rule it fits (on the loop thread).
    func deliver(_ message: Message) {
        let subscriptions = state.withLock { Array($0.entries.values) }
        for subscription in subscriptions where subscription.rule.matches(message) {
            subscription.deliver(message)
        }
    }

    /// Finishes every subscription: quietly after `close()`, with the error when the bus went away.
    func end(_ reason: ClosingReason) {
        // Taken out of the lock first: finishing a stream may release a Connection, whose deinit
        // reaches into the core.
        let leftovers = state.withLock { state in
            state.ended = true
            defer { state.entries = [:] }
            return state.entries
        }
        for subscription in leftovers.values {
            if case .disconnected(let error) = reason { subscription.finish(error) } else { subscription.finish(nil) }
        }
    }
}
