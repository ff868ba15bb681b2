// Saving without waiting: publishes queue here, and the writer commits what waited up to
// `Limits.commitDelay` in one transaction (group commit).
import Dispatch
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
    /// Saves taken by a transaction that has not ended: acknowledged and not yet on disk, like those
    /// waiting, so they count towards `Limits.queuedSaves`.
    var committing = 0
    /// What one transaction took: how many saves, and the count of saves ever queued when it did.
    struct Batch: Sendable {
        var taken: Int
        var upTo: UInt64
    }
    enum Commit { case idle, scheduled, running }
    /// A new save rides on the scheduled commit, or on the one a running commit schedules next.
    var commit = Commit.idle
    var waiters: [(upTo: UInt64, continuation: CheckedContinuation<Void, Never>)] = []
}

extension ActivityStore {
    /// Queues the activity for the commit `Limits.commitDelay` after the first save that waits, and
    /// returns at once: the saves of a burst share one transaction. What a killed process loses is
    /// the tail of what was acknowledged and not committed, never a save older than one kept.
    /// - Returns: true when more than `Limits.queuedSaves` are not committed (those waiting and
    ///   those the running commit took): the caller should await `committed()` before it answers,
    ///   so that what a kill loses of what was acknowledged stays within `Limits.queuedSaves`.
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
            let full = queue.waiting.count + queue.committing > limits.queuedSaves
            guard queue.commit == .idle else { return (false, full) }
            queue.commit = .scheduled
            return (true, full)
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
        let delay = DispatchTimeInterval.nanoseconds(Int(limits.commitDelay / .nanoseconds(1)))
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
        writeCount.withLock { $0 += 1 }
        let generation = file.withLock { $0.generation }
        writer.async {
            let (result, saves, batch) = self.writeQueued { _ throws(SQLiteError) in }
            if case .failure(let error) = result {
                let failure = self.recover(from: error, generation)
                if saves > 0 { self.log("\(saves) acknowledged activities could not be saved: \(failure)") }
            }
            self.finish(batch)
            let next = self.queue.withLock { queue -> SaveQueue.Commit in
                queue.commit = queue.waiting.isEmpty ? .idle : queue.waiters.isEmpty ? .scheduled : .running
                return queue.commit
            }
            switch next {
            case .idle: break
            case .scheduled: self.scheduleCommit()
            case .running: self.commitQueued()
            }
        }
    }

    /// Takes every queued save, for the transaction that runs now, and makes the payloads left to
    /// the writer (outside the queue's lock, which publishes take). A payload that cannot be made,
    /// or is over the limit its bound promised, can only be a bug of the caller's: that save is
    /// logged and left out, the others go on.
    func takeQueued() -> (saves: [(activity: ActivityToSave, at: Int64)], batch: SaveQueue.Batch) {
        let (taken, upTo) = queue.withLock { queue in
            defer { queue.waiting.removeAll(keepingCapacity: true) }
            queue.committing += queue.waiting.count
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
        return (saves, SaveQueue.Batch(taken: taken.count, upTo: upTo))
    }

    /// The batch's transaction ended (committed or failed): the waiters of its saves go on.
    func finish(_ batch: SaveQueue.Batch) {
        let ready = queue.withLock { queue in
            queue.committing -= batch.taken
            queue.finished = max(queue.finished, batch.upTo)
            let finished = queue.finished
            let ready = queue.waiters.filter { $0.upTo <= finished }
            queue.waiters.removeAll { $0.upTo <= finished }
            return ready
        }
        for waiter in ready { waiter.continuation.resume() }
    }
}
