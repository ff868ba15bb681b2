import Synchronization

extension Connection {
    /// Two connections joined to each other with no bus between them, as zbus's peer-to-peer
    /// connections (libdbus's `DBusServer`, accepting one connection and then listening no more).
    ///
    /// Each side has its own thread and executor, and calls, answers, exports and emits as on a bus.
    /// The pair answers the bus's methods itself, as a bus holding just the two: each side's
    /// `uniqueName` is `:peer.N` (never reused in the process) and stamps what it sends, as a bus
    /// does; names are requested and released between the two, with `nameOwnerChanges`; a message
    /// for a name the peer does not own is not sent (a call fails with `ServiceUnknown`);
    /// `processID(of:)` comes from the socket; signals are matched here alone; a monitor is
    /// `NotSupported`. docs/dbus.md has the table. Returns once both sides are authenticated.
    /// - Throws: `BusError` when the socket, the server or the authentication fails.
    public static func pair() async throws -> (Connection, Connection) {
        let names = PeerPairing.names()
        let owned = PairNames()
        let handover = Handover()
        let accepting = try await ConnectionCore.start { () throws(BusError) in
            let (accepted, connecting) = try PeerPairing.connect()
            handover.connecting.withLock { $0 = connecting }
            return ConnectionCore.Opened(
                connection: accepted, uniqueName: names.accepting, peer: names.connecting, pairNames: owned)
        }
        // `start` returned, so the opening ran and succeeded.
        guard let made = handover.connecting.withLock({ $0.take() }) else {
            accepting.requestClose()
            throw BusError(.failed, "the pair's second connection was not made")
        }
        let connecting: ConnectionCore
        do {
            connecting = try await ConnectionCore.start { () throws(BusError) in
                ConnectionCore.Opened(connection: made, uniqueName: names.connecting, peer: names.accepting, pairNames: owned)
            }
        } catch {
            accepting.requestClose()
            throw error
        }
        owned.attach(accepting.subscriptions, of: accepting.uniqueName)
        owned.attach(connecting.subscriptions, of: connecting.uniqueName)
        do {
            try await accepting.authenticated()
            try await connecting.authenticated()
        } catch {
            accepting.requestClose()
            connecting.requestClose()
            throw error
        }
        return (Connection(core: accepting), Connection(core: connecting))
    }

    /// The second connection of a pair, from the thread that made it to `pair()`.
    private final class Handover: Sendable {
        let connecting = Mutex<LibdbusReference?>(nil)
    }
}

/// Where a peer connection answers the bus's questions itself (there is no bus to ask).
extension ConnectionCore {
    /// Who owns `name` on a peer connection: each side its own unique name and the well-known names
    /// it requested; nobody any other name.
    func peerOwner(of name: BusName) -> BusName? {
        if name == uniqueName || name == peer { return name }
        return name.isUnique ? nil : pairNames?.owner(of: name)
    }

    /// Whether the peer is whom `message` is for: no destination, or one the peer owns. Anything
    /// else the bus would not deliver either: a call that wants a reply fails with `ServiceUnknown`
    /// (thrown here), the rest is dropped.
    func peerReceives(_ message: OutgoingMessage) throws(BusError) -> Bool {
        guard let destination = message.message.destination, let peer else { return true }
        if peerOwner(of: destination) == peer { return true }
        if message.message.kind == .methodCall, message.message.expectsReply {
            throw BusError(.serviceUnknown, "the name \(destination) is not the peer's (\(peer))")
        }
        return false
    }

    /// The process and user ids of whoever receives what is sent to `name` on a peer connection.
    /// - Throws: `BusError` `NameHasNoOwner` for a unique name of neither side; `Disconnected` once
    ///   the connection is closed.
    func peerCredentials(of name: BusName) throws(BusError) -> (pid: UInt32, uid: UInt32) {
        switch peerOwner(of: name) {
        case nil: throw BusError(.nameHasNoOwner, "\(name) is neither side of this peer connection")
        case uniqueName: return Self.ownCredentials()
        default: return try peerCredentials()
        }
    }
}
