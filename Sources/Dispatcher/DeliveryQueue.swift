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
    // A turn is taken and given back inline by the hand-overs (Dispatcher+Delivery.swift), not
    // through a function taking the send as a closure: on the path of every link, each async frame
    // and change of isolation between the actor and a closure costs as much as the bookkeeping.

    /// Takes one of `app`'s sending slots: true when one was free; false when the caller must
    /// `waitForTurn(of:)`, which hands it one.
    /// - Throws: `busy` when its queue is full (nothing was sent).
    func enterTurn(of app: String) throws(DispatchError) -> Bool {
        try deliveryQueues[app, default: DeliveryQueue()].enter(app: app)
    }

    /// Waits, parked on the actor (so no slot can be handed over before it waits), for a slot.
    func waitForTurn(of app: String) async {
        await withCheckedContinuation { deliveryQueues[app]!.wait($0) }
    }

    /// Gives the slot back, to the oldest waiting event or to the pool.
    func leaveTurn(of app: String) {
        // One lookup for both (an event is delivered in every app's turn).
        let queue = deliveryQueues.index(forKey: app)!
        deliveryQueues.values[queue].leave()
        if deliveryQueues.values[queue].isIdle { deliveryQueues.remove(at: queue) }
    }
}
