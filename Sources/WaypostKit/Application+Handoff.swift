import DBus
import Synchronization
import WaypostContract

// Handoff (NSUserActivity's, over KDE Connect's protocol: kdeconnectd or GSConnect): this app's current
// activity continued on another device.
extension Application {
    /// Sends the current activity of this app's most recently active scene (one published with
    /// `isEligibleForHandoff`, the default) to a paired device through kdeconnectd or GSConnect,
    /// whichever it is on: a device running
    /// Waypost offers it to its user; a phone gets its webpage URL. A share has no acknowledgement.
    /// - Parameter device: the device's id (`_` and `-` alike) or name; nil for the only reachable one.
    /// - Returns: the name of the device it went to.
    /// - Throws: `notStarted`; `dispatcherRefused` (`UnknownActivity` with no eligible activity,
    ///   `NoHandler` for no such reachable device, `UserInfoTooLarge` over the handoff's 3 KiB).
    @discardableResult
    public func handoff(to device: String? = nil) async throws(WaypostError) -> String {
        // Publishes made before are sent first, so that the activity handed over is the latest.
        try? await synchronize()
        guard let (connection, owner) = state.withLock({ state in state.connection.flatMap { c in state.dispatcher.map { (c, $0) } } })
        else { throw .notStarted(appID: id) }
        do {
            let reply = try await connection.call(
                destination: owner, path: Contract.handoffObjectPath, interface: Contract.Handoff1.interface,
                member: Contract.Handoff1.send.name, device ?? "", id, false, timeout: .seconds(30))
            return try reply.decode(String.self, String.self).0
        } catch {
            throw Self.refusal(Contract.Handoff1.send.name.rawValue, error)
        }
    }
}
