// Saving without waiting: publishes queue here, and the writer commits what waits in one
// transaction as soon as it is free (group commit).
import GRDB
import Synchronization

/// The saves not yet committed, in the order they were queued, and who waits for them.
struct SaveQueue: Sendable {
    var waiting: [(activity: ActivityToSave, at: Int64)] = []
    /// Saves ever queued, and of those, how many a finished transaction took (committed or failed).
    var queued: UInt64 = 0
    var finished: UInt64 = 0
    /// A commit is scheduled or running: a new save rides on it or on the one it schedules next.
    var committing = false
    var waiters: [(upTo: UInt64, continuation: CheckedContinuation<Void, Never>)] = []
}

extension ActivityStore {
    /// Queues the activity for the next commit, which starts as soon as the writer is free, and
    /// returns at once: the saves of a burst share one transaction. What a killed process loses is
    /// the tail of what was queued since the last commit began, never a save queued before it.
    /// - Returns: true when more than `Limits.queuedSaves` wait: the caller should await
    ///   `committed()` before it answers, so that the loss stays bounded.
    /// - Throws: `payloadTooLarge`, queueing nothing.
    public func enqueue(_ activity: ActivityToSave) throws(StoreError) -> Bool {
        guard activity.payload.count <= limits.payloadBytes else {
            throw .payloadTooLarge(appID: activity.appID, bytes: activity.payload.count, limit: limits.payloadBytes)
        }
        let now = clock()
        let (start, full) = queue.withLock { queue in
            queue.waiting.append((activity, now))
            queue.queued += 1
            defer { queue.committing = true }
            return (!queue.committing, queue.waiting.count > limits.queuedSaves)
        }
        if start { commitQueued() }
        return full
    }

    /// Returns once every save queued before the call is committed (or failed, which is logged).
    public func committed() async {
        if queue.withLock({ $0.finished >= $0.queued }) { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = queue.withLock { queue in
                guard queue.finished < queue.queued else { return true }
                queue.waiters.append((queue.queued, continuation))
                return false
            }
            if done { continuation.resume() }
        }
    }

    /// Commits what waits, on the writer's queue, then again while saves keep coming.
    private func commitQueued() {
        let pool = state.withLock { $0.pool }
        let taken = Mutex<(count: Int, upTo: UInt64)>((0, 0))
        let cap = limits.perApplication
        let counts = counts
        writeCount.withLock { $0 += 1 }
        pool.asyncWrite({ db in
            let batch = self.takeQueued()
            taken.withLock { $0 = (batch.saves.count, batch.upTo) }
            try Self.write(batch.saves, cap: cap, counts: counts, db)
        }, completion: { _, result in
            let (count, upTo) = taken.withLock { $0 }
            if case .failure(let error) = result {
                let error = self.recover(from: error, pool)
                self.log("\(count) acknowledged activities could not be saved: \(error)")
            }
            self.finish(upTo: upTo)
            let again = self.queue.withLock { queue in
                queue.committing = !queue.waiting.isEmpty
                return queue.committing
            }
            if again { self.commitQueued() }
        })
    }

    /// Takes every queued save, for the transaction that runs now.
    func takeQueued() -> (saves: [(activity: ActivityToSave, at: Int64)], upTo: UInt64) {
        queue.withLock { queue in
            defer { queue.waiting.removeAll(keepingCapacity: true) }
            return (queue.waiting, queue.queued)
        }
    }

    /// The saves up to `upTo` were taken by a transaction that ended: their waiters go on.
    func finish(upTo: UInt64) {
        let ready = queue.withLock { queue in
            queue.finished = max(queue.finished, upTo)
            let finished = queue.finished
            let ready = queue.waiters.filter { $0.upTo <= finished }
            queue.waiters.removeAll { $0.upTo <= finished }
            return ready
        }
        for waiter in ready { waiter.continuation.resume() }
    }
}
