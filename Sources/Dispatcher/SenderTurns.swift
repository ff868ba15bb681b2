import DBus
import Synchronization

/// Turns between connections for the calls that only change or read the dispatcher's state
/// (registration, scenes, sets, activities): a connection's next such call starts only after the
/// calls other connections sent meanwhile have started. So an app that churns its sets as fast as
/// it can has at most one call ahead of another app's `Open` on the connection's thread, not every
/// call it has in flight (Benchmarks/stress/churn.py).
final class SenderTurns: Sendable {
    private let waiting = Mutex<[BusName: [CheckedContinuation<Void, Never>]]>([:])
    private let executor: ConnectionExecutor

    init(executor: ConnectionExecutor) { self.executor = executor }

    /// Waits for `sender`'s turn: at once when it has no such call running.
    func take(_ sender: BusName) async {
        await withCheckedContinuation { continuation in
            let now = waiting.withLock { waiting in
                guard waiting[sender] != nil else {
                    waiting[sender] = []
                    return true
                }
                waiting[sender]!.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Ends `sender`'s turn: its next call starts once the loop has read what arrived meanwhile.
    func give(_ sender: BusName) {
        let next: CheckedContinuation<Void, Never>? = waiting.withLock { waiting in
            guard var queue = waiting[sender], !queue.isEmpty else {
                waiting[sender] = nil
                return nil
            }
            let next = queue.removeFirst()
            waiting[sender] = queue
            return next
        }
        if let next { executor.afterPendingInput { next.resume() } }
    }
}
