import DBus
import Desktop
import ExternalEvents
import WaypostContract

// Handing an event to a participating app's scene (a step of a plan, Dispatcher+Plans.swift), and
// the calls of io.waypost.Application1 that do it.
//
// At most once (docs/delivery.md): an event goes on to the next destination only when the one tried
// is known not to have it — it refused (an error reply) or vanished from the bus without answering.
// No answer in time, or an answer of the wrong signature, may mean the app has it: the opener hears
// `Timeout` or `InvalidReply`, naming the app, and the event goes nowhere else.
extension Dispatcher {
    /// Hands the event to an open scene of `app`, in the app's turn; `outcome` is what the
    /// acknowledgement brings (told to `pending.prepare` while the app handles it).
    func deliver(
        _ pending: Event, toScene scene: String, of app: String, _ outcome: Outcome
    ) async -> Result<Void, HandOverFailure> {
        // The scene closed since the plan was made: not taken, nothing to report.
        guard let process = registry.owner(ofScene: scene, in: app) else { return .failure(.notTaken(nil)) }
        do {
            if try !enterTurn(of: app) { await waitForTurn(of: app) }
            defer { leaveTurn(of: app) }
            try await handOver(pending, toScene: scene, of: process) { pending.prepare?(outcome) }
            return .success(())
        } catch {
            switch await failure(error, pending, app: app, process) {
            case .notTaken(let why?): return .failure(.notTaken("scene \"\(scene)\" (\(process.owner)): \(why)"))
            case let failure: return .failure(failure)
            }
        }
    }

    /// Asks the processes of `app` that declare `declaration`, most recently active first, to create
    /// a scene for the event; the scene's id, or why none did (each refusal added to `attempts`).
    func createScene(
        _ declaration: String, of app: String, for pending: Event
    ) async -> (Result<String, HandOverFailure>, attempts: [String]) {
        var attempts: [String] = []
        let candidates = registry.processes(of: app).filter { $0.declarations?.contains { $0.id == declaration } == true }
        for process in candidates {
            do {
                if try !enterTurn(of: app) { await waitForTurn(of: app) }
                defer { leaveTurn(of: app) }
                return (.success(try await createScene(declaration, for: pending, in: process)), attempts)
            } catch {
                switch await failure(error, pending, app: app, process) {
                case .notTaken(let why):
                    attempts.append("creating \"\(declaration)\" in \(process.owner): \(why ?? "it went away")")
                case .mayHaveIt(let error): return (.failure(.mayHaveIt(error)), attempts)
                }
            }
        }
        if candidates.isEmpty { attempts.append("no process of \(app) declares \"\(declaration)\"") }
        return (.failure(.notTaken(nil)), attempts)
    }

    /// Why a hand-over did not succeed, as far as the event's next destination is concerned.
    enum HandOverFailure: Error {
        /// The app refused it, or vanished without answering: it does not have it; try the next.
        /// Why, for the caller's list of attempts (nil: nothing worth telling).
        case notTaken(String?)
        /// It may have it: the opener hears this, and nobody else gets the event.
        case mayHaveIt(DispatchError)
    }

    /// How a hand-over sent in the app's turn (`DeliveryQueue`) failed, as far as the event's next
    /// destination is concerned.
    private func failure(_ error: any Error, _ pending: Event, app: String, _ process: AppProcess) async -> HandOverFailure {
        switch error {
        case let error as DispatchError: .mayHaveIt(error)
        case let error as BusError: await sorted(error, pending, app: app, process)
        default: .mayHaveIt(.deliveryFailed(pending.label, attempts: ["\(app) (\(process.owner)): \(error)"]))
        }
    }

    /// An error reply is a refusal; `NoReply` is the app vanishing when the bus no longer knows its
    /// connection (the bus says so when a recipient disconnects), else the delivery timeout.
    private func sorted(_ error: BusError, _ pending: Event, app: String, _ process: AppProcess) async -> HandOverFailure {
        let owner = process.owner
        switch error.name {
        case .serviceUnknown, .nameHasNoOwner:
            connectionVanished(owner.rawValue)
            return .notTaken("it left the bus (\(error))")
        case .noReply:
            // A unique name is never reused: no owner now means the process is gone.
            let gone: Bool
            do { gone = try await callers.connection(for: owner).nameOwner(of: owner) == nil } catch { gone = false }
            if gone {
                connectionVanished(owner.rawValue)
                return .notTaken("it left the bus without answering")
            }
            return .mayHaveIt(.timeout(
                app: app, waitedFor: "acknowledge \(DispatchError.abbreviated(pending.label)) (\(owner)); it was sent nowhere else",
                seconds: configuration.deliveryTimeout / .seconds(1)))
        case .disconnected:
            // The dispatcher's own connection closed: nobody can be told anything any more.
            return .mayHaveIt(.deliveryFailed(pending.label, attempts: ["the dispatcher's connection closed: \(error)"]))
        default:
            return .notTaken("refused: \(error)")
        }
    }

    private func handOver(
        _ pending: Event, toScene scene: String, of process: AppProcess, whileAwaiting: () -> Void
    ) async throws {
        let platform = pending.platformData.properties
        let reply: Message
        let member: Contract.Member
        switch (pending.routed, pending.notification) {
        case (_, let response?):
            member = Contract.Application1.receiveNotificationResponse
            reply = try await callers.connection(for: process.owner).call(
                destination: process.owner, path: process.objectPath, interface: Contract.Application1.interface,
                member: member.name, scene, response.variants, platform, timeout: configuration.deliveryTimeout,
                whileAwaiting: whileAwaiting)
        case (.url(let uri), nil):
            member = Contract.Application1.openURL
            reply = try await callers.connection(for: process.owner).call(
                destination: process.owner, path: process.objectPath, interface: Contract.Application1.interface,
                member: Contract.Application1.openURL.name, scene, uri, platform, timeout: configuration.deliveryTimeout,
                whileAwaiting: whileAwaiting)
        case (.activity(let activity), nil):
            member = Contract.Application1.continueUserActivity
            reply = try await callers.connection(for: process.owner).call(
                destination: process.owner, path: process.objectPath, interface: Contract.Application1.interface,
                member: Contract.Application1.continueUserActivity.name, scene, activity.type, pending.activity, platform,
                timeout: configuration.deliveryTimeout, whileAwaiting: whileAwaiting)
        }
        try Self.check(reply, of: member, from: process)
    }

    private func createScene(_ declaration: String, for pending: Event, in process: AppProcess) async throws -> String {
        let event: Contract.SceneEvent = switch (pending.routed, pending.notification) {
        case (_, let response?): .notificationResponse(response)
        case (.url(let uri), nil): .url(uri)
        case (.activity(let activity), nil): .activity(type: activity.type, activity: pending.activity)
        }
        let reply = try await callers.connection(for: process.owner).call(
            destination: process.owner, path: process.objectPath,
            interface: Contract.Application1.interface, member: Contract.Application1.createScene.name,
            declaration, event.variants, pending.platformData.properties, timeout: configuration.deliveryTimeout)
        try Self.check(reply, of: Contract.Application1.createScene, from: process)
        return try reply.decode(String.self)
    }

    /// A reply of another signature than the contract's is no acknowledgement (nor a refusal).
    private static func check(_ reply: Message, of member: Contract.Member, from process: AppProcess) throws(DispatchError) {
        let expected = member.outputSignature
        guard reply.signature.rawValue == expected else {
            throw .invalidReply(
                app: "\(process.appID) (\(process.owner))", member: member.name.rawValue, signature: reply.signature.rawValue,
                expected: expected)
        }
    }
}
