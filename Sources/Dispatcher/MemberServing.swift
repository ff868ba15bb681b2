import DBus
import Synchronization
import WaypostContract

/// How the daemon serves every exported member, whichever service exports it: the member's policy
/// as dbus/*.xml declares it (`Contract.Member.Policy`: how it is served, its budget of calls in
/// flight) carried out around its handler, and a refusal logged and answered under its contract name.
final class MemberServing: Sendable {
    private let dispatcher: Dispatcher
    /// Turns between connections for calls that deliver nothing (SenderTurns.swift).
    private let turns: SenderTurns
    private let calls = Atomic<UInt64>(0)

    init(dispatcher: Dispatcher, executor: ConnectionExecutor) {
        self.dispatcher = dispatcher
        turns = SenderTurns(executor: executor)
    }

    /// Calls answered so far.
    var answered: UInt64 { calls.load(ordering: .relaxed) }

    /// The member as the contract declares it, served as its policy says, answered by `handler`; a
    /// `DispatchError` reaches the caller under its contract name. A caller with its share of this
    /// member's calls in flight, or any caller while all together hold the member's total, gets
    /// `Busy` (naming the member) at once, before anything is routed or delivered; a call acting as
    /// the registered app is refused, and the registration ended, once its process changed.
    /// A member without a policy in dbus/ is not the daemon's to serve: a programming error.
    func method(
        _ member: Contract.Member, _ handler: nonisolated(nonsending) @escaping @Sendable (MethodCall) async throws -> Reply
    ) -> Method {
        guard let policy = member.policy else { preconditionFailure("\(member.name) has no io.waypost.Serving in dbus/") }
        let inFlight = MemberCalls(member, limit: policy.callsInFlight)
        return member.exported { call in
            do {
                let caller = await self.dispatcher.openers.budgetCaller(of: call.sender)
                try inFlight.enter(caller)
                defer {
                    inFlight.leave(caller)
                    self.calls.add(1, ordering: .relaxed)
                }
                if policy.serving == .delivers { return try await handler(call) }
                await self.turns.take(call.sender)
                defer { self.turns.give(call.sender) }
                if policy.serving == .actsAsTheApp { try await self.dispatcher.recheckIdentity(of: call.sender.rawValue) }
                return try await handler(call)
            } catch let error as DispatchError {
                // The only URI a method's error can name is its first argument's (Explain's).
                var arguments = call.message.reader()
                let uri = (try? arguments.read(String.self)) ?? ""
                self.dispatcher.reports.refusal(error, "\(call.member) from \(call.sender): \(error.busError.name): \(error.redacting(uri))")
                throw error.busError
            }
        }
    }
}
