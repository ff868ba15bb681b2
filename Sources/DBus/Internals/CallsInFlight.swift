import Synchronization

/// The method calls sent on a connection that wait for their reply, by the serial libdbus gave them.
///
/// A call is sent and registered under one lock (`register`), and a reply is matched under the same
/// lock (`complete`), so a reply that arrives before the sender returns from libdbus still finds
/// its call. Whoever removes a call resumes its continuation: that is how each call is resumed
/// exactly once, by its reply, its deadline, its cancellation or the connection's end.
final class CallsInFlight: Sendable {
    private struct State: ~Copyable {
        var pending: [UInt32: PendingCall] = [:]
        /// Earliest deadline among `pending`; may be stale-early (only ever too early, never too late).
        var earliestDeadline: UInt64 = .max
        /// When the loop will wake at the latest; a call due sooner must wake it.
        var loopWakesAt: UInt64 = 0
        /// Set when the connection has ended: nothing may wait on it from then on.
        var ended: BusError?
    }

    private let state = Mutex(State())

    /// Sends a call with `send` and registers it under the serial `send` returns, atomically with
    /// respect to replies.
    /// - Returns: the serial, and whether the loop must be woken to see the call's deadline in time.
    /// - Throws: what `send` throws, or the connection's end; the call is then not registered.
    func register(
        _ call: PendingCall, sending send: () throws(BusError) -> UInt32
    ) throws(BusError) -> (serial: UInt32, wakeLoop: Bool) {
        try state.withLock { state throws(BusError) in
            if let ended = state.ended { throw ended }
            let serial = try send()
            state.pending[serial] = call
            state.earliestDeadline = min(state.earliestDeadline, call.deadline)
            return (serial, call.deadline < state.loopWakesAt)
        }
    }

    /// Removes the call a reply answers; nil for a reply nobody waits for any more (the call timed
    /// out or was cancelled).
    func complete(_ serial: UInt32) -> PendingCall? {
        state.withLock { $0.pending.removeValue(forKey: serial) }
    }

    /// Ends the call `serial`, if it still waits, with `error`.
    func fail(_ serial: UInt32, with error: any Error) {
        complete(serial)?.continuation.resume(throwing: error)
    }

    /// Records when the loop will wake next (so that a sooner deadline wakes it) and returns it:
    /// the earliest of `latest` and every deadline.
    func loopWakes(noLaterThan latest: UInt64) -> UInt64 {
        state.withLock { state in
            state.loopWakesAt = min(state.earliestDeadline, latest)
            return state.loopWakesAt
        }
    }

    /// Fails every call whose deadline has passed with `NoReply`.
    func expire(now: UInt64) {
        let expired: [PendingCall] = state.withLock { state in
            guard now >= state.earliestDeadline else { return [] }
            var expired: [PendingCall] = []
            var earliest = UInt64.max
            for (serial, pending) in state.pending {
                if pending.deadline <= now {
                    expired.append(pending)
                    state.pending.removeValue(forKey: serial)
                } else {
                    earliest = min(earliest, pending.deadline)
                }
            }
            state.earliestDeadline = earliest
            return expired
        }
        for pending in expired {
            let what = pending.member.map { "\($0)" } ?? "the call"
            pending.continuation.resume(throwing: BusError(.noReply, "no reply to \(what) within \(pending.timeout)"))
        }
    }

    /// Fails every waiting call with `error`, and every call registered from now on.
    func end(with error: BusError) {
        let leftovers = state.withLock { state in
            state.ended = error
            defer { state.pending = [:] }
            return state.pending
        }
        for pending in leftovers.values { pending.continuation.resume(throwing: error) }
    }
}

struct PendingCall {
    let continuation: CheckedContinuation<Message, any Error>
    let deadline: UInt64
    let timeout: Duration
    let member: MemberName?
}

/// Where a call's serial is kept once it is sent, for a cancellation that comes while it waits.
final class CallTicket: Sendable {
    private let sentSerial = Atomic<UInt32>(0)

    /// 0 until the call is sent (libdbus never gives serial 0).
    var serial: UInt32 { sentSerial.load(ordering: .sequentiallyConsistent) }

    func sent(as serial: UInt32) { sentSerial.store(serial, ordering: .sequentiallyConsistent) }
}
