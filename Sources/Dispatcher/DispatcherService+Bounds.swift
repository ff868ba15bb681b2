import DBus
import Logging
import Synchronization
import WaypostContract

/// One member's calls in flight: each caller's (`Budgets.Caller`: its app, else its process, over
/// all its connections) and all callers' together, so that a flood of one member (links at a hung
/// app) leaves the other members served, and no one caller takes a member's every slot.
final class MemberCalls: Sendable {
    let member: String
    let limit: Contract.Member.CallsInFlight
    private struct Counts {
        var byCaller: [Budgets.Caller: Int] = [:]
        var all = 0
    }
    private let counts = Mutex(Counts())

    init(_ member: Contract.Member, limit: Contract.Member.CallsInFlight) {
        self.member = member.name.rawValue
        self.limit = limit
    }

    /// - Throws: `callsInFlight` naming the member, and the caller and its share, or every caller
    ///   and the total, whichever is full.
    func enter(_ caller: Budgets.Caller) throws(DispatchError) {
        let full: (who: String, limit: Int)? = counts.withLock { counts in
            let mine = counts.byCaller[caller, default: 0]
            if mine >= limit.share { return (caller.description, limit.share) }
            if counts.all >= limit.total { return ("every caller together", limit.total) }
            counts.byCaller[caller] = mine + 1
            counts.all += 1
            return nil
        }
        if let full { throw .callsInFlight(member: member, caller: full.who, limit: full.limit) }
    }

    func leave(_ caller: Budgets.Caller) {
        counts.withLock { counts in
            let mine = counts.byCaller[caller, default: 1] - 1
            counts.byCaller[caller] = mine == 0 ? nil : mine
            counts.all -= 1
        }
    }
}
