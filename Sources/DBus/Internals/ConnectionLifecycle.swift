import Synchronization

/// Whether a connection is open, closing or closed, and who waits for it to close.
final class ConnectionLifecycle: Sendable {
    private struct State: ~Copyable {
        var closeRequested = false
        /// Set once the loop has ended.
        var closingReason: ClosingReason?
        var waiters: [Int: CheckedContinuation<ClosingReason, any Error>] = [:]
        var nextWaiterID = 0
    }

    private let state = Mutex(State())

    /// Neither closed nor asked to close.
    var isOpen: Bool { state.withLock { $0.closingReason == nil && !$0.closeRequested } }

    var closeRequested: Bool { state.withLock { $0.closeRequested } }

    /// Why the connection closed; nil while the loop runs.
    var closingReason: ClosingReason? { state.withLock { $0.closingReason } }

    /// Records a request to close; true for the first one.
    func requestClose() -> Bool {
        state.withLock { state in
            defer { state.closeRequested = true }
            return !state.closeRequested
        }
    }

    /// Suspends until `ended(_:)`; throws `CancellationError` when the waiting task is cancelled first.
    func waitUntilClosed() async throws -> ClosingReason {
        let id = state.withLock { state in
            defer { state.nextWaiterID += 1 }
            return state.nextWaiterID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let closed: ClosingReason? = state.withLock { state in
                    if let reason = state.closingReason { return reason }
                    state.waiters[id] = continuation
                    return nil
                }
                if let closed { continuation.resume(returning: closed) }
                if Task.isCancelled { cancelWaiter(id) }
            }
        } onCancel: {
            cancelWaiter(id)
        }
    }

    private func cancelWaiter(_ id: Int) {
        state.withLock { $0.waiters.removeValue(forKey: id) }?.resume(throwing: CancellationError())
    }

    /// The loop has ended for `reason`: every waiter, present and future, learns it.
    func ended(_ reason: ClosingReason) {
        let waiters = state.withLock { state in
            state.closingReason = reason
            state.closeRequested = true
            defer { state.waiters = [:] }
            return state.waiters
        }
        for waiter in waiters.values { waiter.resume(returning: reason) }
    }
}
