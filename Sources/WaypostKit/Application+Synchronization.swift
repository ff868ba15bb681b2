import DBus
import ExternalEvents
import Synchronization
import WaypostContract

// Keeping the dispatcher in step: registering (again, when it restarts), then sending only what
// changed since it last acknowledged, one call at a time.
extension Application {
    /// Waits until the dispatcher has every change made before this call.
    /// - Throws: `notStarted`; `dispatcherRefused` with the dispatcher's error when a call failed
    ///   (a later change, or a dispatcher restarting, makes the app try again).
    public func synchronize() async throws(WaypostError) {
        do {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let ready: WaypostError?? = state.withLock { state in
                    guard state.connection != nil else { return .some(.notStarted(appID: id)) }
                    if state.syncedGeneration >= state.generation { return .some(nil) }
                    state.waiters[state.nextWaiter] = (state.generation, continuation)
                    state.nextWaiter += 1
                    return .none
                }
                switch ready {
                case .some(.some(let error)): continuation.resume(throwing: error)
                case .some(.none): continuation.resume()
                case .none: break
                }
            }
        } catch let error as WaypostError {
            throw error
        } catch {
            throw .dispatcherRefused(call: "synchronize", errorName: "", message: "\(error)")
        }
    }

    /// How many calls of each member the app made to the dispatcher (for tests of coalescing).
    package var dispatcherCalls: [String: Int] { state.withLock { $0.calls } }

    /// Holds (or lets go of) sending changes, so that a test can make the dispatcher's view of the
    /// app stale, as it is for a moment after every change in real use.
    package func holdSynchronization(_ held: Bool) {
        state.withLock { $0.held = held }
        if !held { wake.yield() }
    }

    /// Marks a change the dispatcher must hear of, and wakes the synchronizer.
    func changed(_ change: (inout ApplicationState) -> Void) {
        state.withLock { state in
            change(&state)
            state.generation += 1
        }
        wake.yield()
    }

    func dispatcherChanged(_ change: NameOwnerChange) {
        let again = state.withLock { state in
            if let owner = change.newOwner, owner == state.dispatcher { return false }
            if change.newOwner == nil, state.dispatcher != nil, change.oldOwner != state.dispatcher { return false }
            // It went away (register again, which starts a new one), or a new one took the name.
            state.dispatcher = nil
            state.needsRegistration = true
            state.generation += 1
            return true
        }
        if again { wake.yield() }
    }

    /// One pass: register if needed, then send the differences one call at a time.
    func synchronizeOnce() async {
        let (target, registering, failures, held) = state.withLock {
            ($0.generation, $0.needsRegistration, $0.registrationFailures, $0.held)
        }
        if held { return }
        do throws(WaypostError) {
            if registering {
                // A dispatcher that keeps failing is not hammered: back off up to five seconds.
                if failures > 0 { try? await Task.sleep(for: .milliseconds(min(50 << min(failures, 7), 5_000))) }
                try await register()
            }
            var refusal: WaypostError?
            while let step = state.withLock({ $0.nextStep(singleScene: isSingleScene) }) {
                do { try await send(step) } catch where step.isActivity && !Self.isGone(error) {
                    // The app's own mistake (an unlisted type, say): reported, and not sent again
                    // until the activity changes, so that the scenes' other changes still go.
                    refusal = error
                }
                state.withLock { $0.acknowledge(step) }
            }
            if let items = state.withLock({ $0.shortcutItems != $0.sentShortcutItems ? $0.shortcutItems : nil }) {
                do { try await call(Contract.Dispatcher1.setShortcutItems, items.map(\.variants)) } catch where !Self.isGone(error) {
                    // Over a budget, say: reported, and not sent again until the items change.
                    refusal = error
                }
                state.withLock { $0.sentShortcutItems = items }
            }
            // The scenes opened so far are known: a link held for this launch may take one of them.
            if state.withLock({ $0.needsReadyAnnouncement }) {
                try await call(Contract.Dispatcher1.ready)
                state.withLock { $0.needsReadyAnnouncement = false }
            }
            state.withLock { state in
                state.syncedGeneration = max(state.syncedGeneration, target)
                state.registrationFailures = 0
                state.finishWaiters(upTo: target, error: refusal)
            }
        } catch {
            let retry = state.withLock { state in
                if registering || Self.isGone(error) {
                    state.needsRegistration = true
                    state.registrationFailures += 1
                }
                state.finishWaiters(upTo: .max, error: error)
                return state.needsRegistration && state.connection?.isConnected == true
            }
            // Try again (after the backoff above) rather than wait for the next change.
            if retry { wake.yield() }
        }
    }

    /// Finds (or starts) the dispatcher, then registers and declares the scenes; the scenes follow
    /// as differences from nothing.
    private func register() async throws(WaypostError) {
        guard let connection = state.withLock({ $0.connection }) else { throw .notStarted(appID: id) }
        // Activation (the bus starts the dispatcher from its service file) when it is not running;
        // then the owner's program is checked, so that a squatter never sees a scene.
        let owner: BusName
        do { owner = try await trustedDispatcher.withLock({ $0 }).verifiedOwner(on: connection) } catch {
            switch error {
            case .bus(let error): throw Self.refusal("finding \(Contract.busName)", error)
            case .untrusted(_, let pid, let program, _), .notInstalled(_, let pid, let program, _):
                throw .untrustedDispatcher(pid: pid, program: program, reason: error.description)
            }
        }
        state.withLock { state in
            state.dispatcher = owner
            state.needsRegistration = false
            state.needsReadyAnnouncement = true
            state.sent = [:]
            state.sentShortcutItems = []
        }
        let options = Contract.RegistrationOptions(singleScene: isSingleScene, announcesReady: true)
        try await call(Contract.Dispatcher1.registerApplication, id, Self.objectPath, options.variants)
        try await call(Contract.Dispatcher1.declareScenes, declarations.map { Contract.Declaration($0).structure })
    }

    private func send(_ step: SyncStep) async throws(WaypostError) {
        switch step {
        case .remove(let scene): try await call(Contract.Dispatcher1.removeScene, scene)
        case .add(let scene, let declaration, _): try await call(Contract.Dispatcher1.addScene, scene, declaration)
        case .activate(let scene, _): try await call(Contract.Dispatcher1.activateScene, scene)
        case .setModifiers(let scene, let modifiers):
            try await call(Contract.Dispatcher1.setExternalEvents, scene, modifiers.map { Contract.Modifier($0).structure })
        case .setActivity(let scene, let activity):
            try await call(Contract.Dispatcher1.setCurrentActivity, scene, activity.type, activity.variants)
        case .clearActivity(let scene): try await call(Contract.Dispatcher1.clearCurrentActivity, scene)
        }
    }

    /// Every call to the dispatcher goes through here, to the instance registered with.
    func call<each Argument: BusValue>(_ member: Contract.Member, _ arguments: repeat each Argument) async throws(WaypostError) {
        guard let (connection, owner) = state.withLock({ state in state.connection.flatMap { c in state.dispatcher.map { (c, $0) } } })
        else { throw .notStarted(appID: id) }
        do {
            _ = try await connection.call(
                destination: owner, path: Contract.objectPath, interface: Contract.Dispatcher1.interface,
                member: member.name, repeat each arguments, timeout: .seconds(10))
        } catch {
            throw Self.refusal(member.name.rawValue, error)
        }
        state.withLock { $0.calls[member.name.rawValue, default: 0] += 1 }
    }

    static func refusal(_ call: String, _ error: any Error) -> WaypostError {
        if let error = error as? BusError {
            return .dispatcherRefused(call: call, errorName: error.name.rawValue, message: error.message)
        }
        return .dispatcherRefused(call: call, errorName: "", message: "\(error)")
    }

    /// Whether the dispatcher instance is gone, so that only registering again can help.
    private static func isGone(_ error: WaypostError) -> Bool {
        guard case .dispatcherRefused(_, let name, _) = error else { return false }
        let gone: Set<String> = [
            ErrorName.serviceUnknown.rawValue, ErrorName.nameHasNoOwner.rawValue, ErrorName.noReply.rawValue,
            ErrorName.disconnected.rawValue, Contract.Failure.notRegistered.errorName.rawValue,
        ]
        return gone.contains(name)
    }
}
