public import DBus
import Synchronization

/// The connection each caller is reached through: the bus, or a peer connection the service
/// serves beside it (`DispatcherService.serve(peer:)`, a process talking to the dispatcher with no
/// bus between, as the tests' apps do). A caller's process, whether it is still there, and the
/// calls and signals for it go where its messages came from.
public final class CallerConnections: Sendable {
    /// Where the dispatcher owns its name and reaches everyone who is not a peer.
    public let bus: Connection
    /// Each served peer by the name its messages arrive stamped with.
    private let peers = Mutex<[BusName: Connection]>([:])

    init(bus: Connection) { self.bus = bus }

    /// The connection `caller`'s messages arrive on.
    func connection(for caller: BusName) -> Connection {
        peers.withLock { $0[caller] } ?? bus
    }

    /// Reaches the other side of `peer` through it from now on.
    func add(_ peer: Connection) {
        guard let name = peer.peerName else { return }
        peers.withLock { $0[name] = peer }
    }

    /// Every connection served: the bus, then each peer. What a bus would broadcast to is sent on
    /// each, and what it would route to an object is exported on each.
    var served: [Connection] { [bus] + peers.withLock { Array($0.values) } }

    /// The peer named `name` left.
    func remove(_ name: BusName) { _ = peers.withLock { $0.removeValue(forKey: name) } }
}
