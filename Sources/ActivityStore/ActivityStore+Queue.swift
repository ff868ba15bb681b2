// Saving without waiting: publishes queue here, and the writer commits what waited up to
// `Limits.commitDelay` in one transaction (group commit). A commit that fails keeps its saves.
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

    /// Why the last commit failed, until one succeeds: its saves wait again at the front, and no
    /// new one is queued meanwhile.
    var failure: SQLiteError?
    /// Commits failed in a row: the kept saves are tried again after `Limits.retryDelay` times 2^n.
    var failures = 0
    var retryScheduled = false
    /// A `saveAgain` is trying: another is refused at once rather than waiting behind it (a file
    /// locked by another process makes each attempt wait `Limits.busyTimeout`).
    var attempting = false
}

extension ActivityStore {
    /// Queues the activity for the commit `Limits.commitDelay` after the first save that waits, and
    /// returns at once: the saves of a burst share one transaction. What a killed process loses is
    /// the tail of what was acknowledged and not committed, never a save older than one kept.
    /// - Returns: true when more than `Limits.queuedSaves` are not committed (those waiting and
    ///   those the running commit took): the caller should await `committed()` before it answers,
    ///   so that what a kill loses of what was acknowledged stays within `Limits.queuedSaves`.
    /// - Throws: `payloadTooLarge`; `cannotWrite` while the last commit failed (the caller may
    ///   `save` it instead, which tries at once). Either way nothing is queued.
    public func enqueue(_ activity: ActivityToSave) throws(StoreError) -> Bool {
        guard activity.payload.count <= limits.payloadBytes else {
            throw .payloadTooLarge(appID: activity.appID, bytes: activity.payload.count, limit: limits.payloadBytes)
        }
        return try append(.init(activity: activity, at: clock()))
    }

    /// Queues the activity as `enqueue(_:)` does, with the payload the writer makes when it commits
    /// (`activity.payload` is not used), so that making it costs the caller's thread nothing.
    /// - Throws: `payloadTooLarge`, queueing nothing, when `payload.bound` is over the limit: the
    ///   caller then makes the payload and enqueues it whole, to be refused only for its real size.
    public func enqueue(_ activity: ActivityToSave, payload: DeferredPayload) throws(StoreError) -> Bool {
        guard payload.bound <= limits.payloadBytes else {
            throw .payloadTooLarge(appID: activity.appID, bytes: payload.bound, limit: limits.payloadBytes)
        }
        return try append(.init(activity: activity, at: clock(), payload: payload))
    }

    private func append(_ save: SaveQueue.Queued) throws(StoreError) -> Bool {
        let (schedule, full, failure) = queue.withLock { queue -> (Bool, Bool, StoreError?) in
            if let failure = queue.failure { return (false, false, .cannotWrite(path: path, failure, waiting: queue.waiting.count)) }
            queue.waiting.append(save)
            queue.queued += 1
            let full = queue.waiting.count + queue.committing > limits.queuedSaves
            guard queue.commit == .idle else { return (false, full, nil) }
            queue.commit = .scheduled
            return (true, full, nil)
        }
        if let failure { throw failure }
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
    /// coming (at once when someone waits for them). After a failure the kept saves wait for
    /// their retry (`keep`), not for the next round.
    private func commitQueued() {
        writeCount.withLock { $0 += 1 }
        let generation = file.withLock { $0.generation }
        writer.async {
            let (result, batch) = self.writeQueued { _ throws(SQLiteError) in }
            if case .failure(let error) = result { _ = self.recover(from: error, generation) }
            self.finish(batch)
            let next = self.queue.withLock { queue -> SaveQueue.Commit in
                let more = !queue.waiting.isEmpty && queue.failure == nil
                queue.commit = !more ? .idle : queue.waiters.isEmpty ? .scheduled : .running
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

    /// Saves the activity with every kept one, now, for a caller `enqueue` refused with
    /// `cannotWrite`: the first save after the store can write again succeeds, and saves them all.
    /// - Throws: `cannotWrite` at once while another such attempt runs; what `save` throws.
    public func saveAgain(_ activity: ActivityToSave) async throws(StoreError) {
        let (refusal, owns) = queue.withLock { queue -> (StoreError?, Bool) in
            if queue.attempting, let failure = queue.failure { return (.cannotWrite(path: path, failure, waiting: queue.waiting.count), false) }
            if queue.attempting { return (nil, false) }
            queue.attempting = true
            return (nil, true)
        }
        if let refusal { throw refusal }
        defer { if owns { queue.withLock { $0.attempting = false } } }
        try await save(activity)
    }

    /// On the writer's queue, after a transaction failed: its saves wait again, in front of any
    /// queued since, for the first commit that can (a `save`, a write, or the retry scheduled
    /// here). Logged when the store starts failing; publishes are refused until then.
    func keep(_ saves: [(activity: ActivityToSave, at: Int64)], _ error: SQLiteError) {
        let (first, waiting, retry) = queue.withLock { queue -> (Bool, Int, Duration?) in
            queue.waiting.insert(contentsOf: saves.map { SaveQueue.Queued(activity: $0.activity, at: $0.at) }, at: 0)
            let first = queue.failure == nil
            queue.failure = error
            queue.failures += 1
            guard !queue.retryScheduled, !queue.waiting.isEmpty else { return (first, queue.waiting.count, nil) }
            queue.retryScheduled = true
            return (first, queue.waiting.count, limits.retryDelay * (1 << min(queue.failures - 1, 6)))
        }
        if first {
            log("the activity store \(path) cannot be written (\(error)): \(waiting) acknowledged activities are kept and saved once it can; publishes are refused until then")
        }
        guard let retry else { return }
        let delay = DispatchTimeInterval.nanoseconds(Int(retry / .nanoseconds(1)))
        DispatchQueue.global().asyncAfter(deadline: .now() + delay) {
            let start = self.queue.withLock { queue in
                queue.retryScheduled = false
                guard queue.failure != nil, !queue.waiting.isEmpty, queue.commit == .idle else { return false }
                queue.commit = .running
                return true
            }
            if start { self.commitQueued() }
        }
    }

    /// On the writer's queue, after a transaction committed: the store writes again.
    func wrote() {
        let recovered = queue.withLock { queue -> Bool in
            defer { (queue.failure, queue.failures) = (nil, 0) }
            return queue.failure != nil
        }
        if recovered { log("the activity store \(path) is written again: the activities kept meanwhile are saved") }
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
