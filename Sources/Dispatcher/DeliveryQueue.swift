/// The events waiting to be handed to one app: at most `inFlight` calls await its acknowledgement
/// at once, at most `waiting` more wait their turn, and beyond that an event is refused `Busy` at
/// once. So a flood is answered, never left to time out, and each event's delivery timeout starts
/// when it is sent to the app, not when it joined the queue.
struct DeliveryQueue: Sendable {
    static let inFlight = 64
    static let waiting = 1024

    private var sending = 0
    private var waiters: [CheckedContinuation<Void, Never>] = []

    var isIdle: Bool { sending == 0 && waiters.isEmpty }

    /// Takes a sending slot: true when one is free now; false when the caller must `wait` for one.
    /// - Throws: `busy` when `waiting` events already wait.
    mutating func enter(app: String) throws(DispatchError) -> Bool {
        if sending < Self.inFlight {
            sending += 1
            return true
        }
        guard waiters.count < Self.waiting else {
            throw .busy("\(waiters.count) events are waiting for \(app)", limit: Self.waiting)
        }
        return false
    }

    /// Parks `continuation` until a slot is handed to it.
    mutating func wait(_ continuation: CheckedContinuation<Void, Never>) { waiters.append(continuation) }

    /// Gives the slot back: to the oldest waiting event, which then sends, or to the pool.
    mutating func leave() {
        if waiters.isEmpty {
            sending -= 1
        } else {
            waiters.removeFirst().resume()
        }
    }
}

extension Dispatcher {
    /// Runs `send` once the app has a free sending slot, waiting in its bounded queue for one.
    /// - Throws: `busy` when its queue is full (nothing was sent); what `send` throws.
    func inTurn<Result>(
        for app: String, _ send: () async throws -> Result
    ) async throws -> Result {
        if try !deliveryQueues[app, default: DeliveryQueue()].enter(app: app) {
            // Parked synchronously, on the actor, so no slot can be handed over before it waits.
            await withCheckedContinuation { deliveryQueues[app]!.wait($0) }
        }
        defer {
            // One lookup for both (an event is delivered in every app's turn).
            let queue = deliveryQueues.index(forKey: app)!
            deliveryQueues.values[queue].leave()
            if deliveryQueues.values[queue].isIdle { deliveryQueues.remove(at: queue) }
        }
        return try await send()
    }
}
