// Saving without waiting: publishes queue here, and the writer commits what waited up to
// `Limits.commitDelay` in one transaction (group commit).
import Dispatch
import GRDB
import Synchronization

/// The saves not yet committed, in the order they were queued, and who waits for them.
struct SaveQueue: Sendable {
    struct Queued: Sendable {
        var activity: ActivityToSave
        var at: Int64
        /// Made by the writer, when nil the activity's own.
        var payload: DeferredPayload?
    }

    var waiting: [Queued] = []
    /// Saves ever queued, and of those, how many a finished transaction took (committed or failed).
    var queued: UInt64 = 0
    var finished: UInt64 = 0
    enum Commit { case idle, scheduled, running }
    /// A new save rides on the scheduled commit, or on the one a running commit schedules next.
    var commit = Commit.idle
    var waiters: [(upTo: UInt64, continuation: CheckedContinuation<Void, Never>)] = []
}

extension ActivityStore {
    /// Queues the activity for the commit `Limits.commitDelay` after the first save that waits, and
    /// returns at once: the saves of a burst share one transaction. What a killed process loses is
    /// the tail of what was queued since the last commit began, never a save queued before it.
    /// - Returns: true when more than `Limits.queuedSaves` wait: the caller should await
    ///   `committed()` before it answers, so that the loss stays bounded.
    /// - Throws: `payloadTooLarge`, queueing nothing.
    public func enqueue(_ activity: ActivityToSave) throws(StoreError) -> Bool {
        guard activity.payload.count <= limits.payloadBytes else {
            throw .payloadTooLarge(appID: activity.appID, bytes: activity.payload.count, limit: limits.payloadBytes)
        }
        return append(.init(activity: activity, at: clock()))
    }

    /// Queues the activity as `enqueue(_:)` does, with the payload the writer makes when it commits
    /// (`activity.payload` is not used), so that making it costs the caller's thread nothing.
    /// - Throws: `payloadTooLarge`, queueing nothing, when `payload.bound` is over the limit: the
    ///   caller then makes the payload and enqueues it whole, to be refused only for its real size.
    public func enqueue(_ activity: ActivityToSave, payload: DeferredPayload) throws(StoreError) -> Bool {
        guard payload.bound <= limits.payloadBytes else {
            throw .payloadTooLarge(appID: activity.appID, bytes: payload.bound, limit: limits.payloadBytes)
        }
        return append(.init(activity: activity, at: clock(), payload: payload))
    }

    private func append(_ save: SaveQueue.Queued) -> Bool {
        let (schedule, full) = queue.withLock { queue in
            queue.waiting.append(save)
            queue.queued += 1
            guard queue.commit == .idle else { return (false, queue.waiting.count > limits.queuedSaves) }
            queue.commit = .scheduled
            return (true, false)
        }
        if schedule { scheduleCommit() }
        return full
    }

    /// Returns once every save queued before the call is committed (or failed, which is logged);
    /// a scheduled commit starts now rather than after its delay.
    public func committed() async {
        if queue.withLock({ $0.finished >= $0.queued }) { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let (done, start) = queue.withLock { queue in
                guard queue.finished < queue.queued else { return (true, false) }
                queue.waiters.append((queue.queued, continuation))
                guard queue.commit == .scheduled else { return (false, false) }
                queue.commit = .running
                return (false, true)
            }
            if done { continuation.resume() }
            if start { commitQueued() }
        }
    }

    private func scheduleCommit() {
        let (seconds, attoseconds) = limits.commitDelay.components
        let delay = DispatchTimeInterval.nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
        DispatchQueue.global().asyncAfter(deadline: .now() + delay) {
            let start = self.queue.withLock { queue in
                guard queue.commit == .scheduled else { return false }
                queue.commit = .running
                return true
            }
            if start { self.commitQueued() }
        }
    }

    /// Commits what waits, on the writer's queue; then schedules the next commit while saves keep
    /// coming (at once when someone waits for them).
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
            let next = self.queue.withLock { queue -> SaveQueue.Commit in
                queue.commit = queue.waiting.isEmpty ? .idle : queue.waiters.isEmpty ? .scheduled : .running
                return queue.commit
            }
            switch next {
            case .idle: break
            case .scheduled: self.scheduleCommit()
            case .running: self.commitQueued()
            }
        })
    }

    /// Takes every queued save, for the transaction that runs now, and makes the payloads left to
    /// the writer (outside the queue's lock, which publishes take). A payload that cannot be made,
    /// or is over the limit its bound promised, can only be a bug of the caller's: that save is
    /// logged and left out, the others go on.
    func takeQueued() -> (saves: [(activity: ActivityToSave, at: Int64)], upTo: UInt64) {
        let (taken, upTo) = queue.withLock { queue in
            defer { queue.waiting.removeAll(keepingCapacity: true) }
            return (queue.waiting, queue.queued)
        }
        var saves: [(activity: ActivityToSave, at: Int64)] = []
        saves.reserveCapacity(taken.count)
        for save in taken {
            var activity = save.activity
            if let payload = save.payload {
                do { activity.payload = try payload.make() } catch {
                    log("an acknowledged activity of \(activity.appID) was not saved: its payload could not be made: \(error)")
                    continue
                }
                guard activity.payload.count <= limits.payloadBytes else {
                    log("an acknowledged activity of \(activity.appID) was not saved: its payload of \(activity.payload.count) bytes is over its bound of \(payload.bound)")
                    continue
                }
            }
            saves.append((activity, save.at))
        }
        return (saves, upTo)
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
