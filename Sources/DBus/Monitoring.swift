import Synchronization

/// What a monitor connection watches and whom it hands each copy to.
struct BusMonitor: Sendable {
    let rules: [MatchRule]
    let deliver: @Sendable (Message) -> Void
    let finish: @Sendable (BusError?) -> Void
    /// Once the bus made the connection a monitor it may send nothing: the bus would disconnect it.
    var isSealed = false

    /// Whether `message` is the monitor's: a copy of someone else's message (a reply addressed to
    /// this connection is its own, the answer to `BecomeMonitor`).
    func takes(_ message: Message, ownName: BusName) -> Bool {
        if message.kind == .methodReturn || message.kind == .error, message.destination == ownName { return false }
        if rules.contains(where: { $0.matches(message) }) { deliver(message) }
        return true
    }

    func end(_ reason: ClosingReason) {
        if case .disconnected(let error) = reason { finish(error) } else { finish(nil) }
    }
}

extension Connection {
    /// Makes this connection a monitor of the bus (`org.freedesktop.DBus.Monitoring.BecomeMonitor`):
    /// from then on it receives a copy of every message that one of `rules` matches, whoever sent
    /// it to whom, and nothing addressed to it; it may send nothing more (the bus disconnects a
    /// monitor that sends, so sending now throws `AccessDenied`). Give it a connection of its own.
    ///
    /// Ending the stream closes the connection. The stream throws `Disconnected` if the bus goes away.
    /// - Throws: `BusError` when the bus refuses (another user's bus, a policy), or the connection is
    ///   closed; `NotSupported` on a peer connection, which has no bus to copy from.
    public func monitor(matching rules: [MatchRule]) async throws -> AsyncThrowingStream<Message, any Error> {
        if core.peer != nil { throw BusError(.notSupported, "a peer connection has no bus to monitor") }
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: Message.self)
        let watching = BusMonitor(
            rules: rules, deliver: { continuation.yield($0) }, finish: { continuation.finish(throwing: $0) })
        core.monitor.withLock { $0 = watching }
        continuation.onTermination = { [core] _ in core.requestClose() }
        do {
            _ = try await call(
                destination: .bus, path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus.Monitoring",
                member: "BecomeMonitor", rules.map(\.description), UInt32(0))
        } catch {
            core.monitor.withLock { $0 = nil }
            continuation.finish(throwing: error)
            throw error
        }
        core.monitor.withLock { $0?.isSealed = true }
        return stream
    }
}
