import DBus
import Synchronization

/// The links apps hand the OpenURI portal, seen on the bus as they go by, so that the link the
/// portal passes on keeps its opener and its activation token.
///
/// xdg-desktop-portal 1.16 (Debian 12) hands a link to the dispatcher's DBusActivatable entry with
/// `org.freedesktop.Application.Open` and empty platform data: the token the calling app gave
/// (`activation_token`) is dropped, and the caller is the portal itself. A monitor connection of its
/// own (`Connection.monitor`) sees each `OpenURI` call as the bus routes it, before the portal reads
/// it; when the portal's `Open` of the same link comes, the request is taken, and with it the
/// calling connection (the app, or a sandbox's proxy) and its token. Only the portal's `Open` takes
/// one: whoever owns `org.freedesktop.portal.Desktop` now.
///
/// A request the daemon was not running for (the portal's `Open` started it) was never seen: that
/// link goes on without a token, its opener the portal. Requests are links other apps open: kept
/// at most `capacity` of them for `lifetime`, never logged.
final class PortalRequests: Sendable {
    struct Request: Sendable {
        let uri: String
        /// The connection that asked the portal.
        let caller: BusName
        /// Who that is, found from the moment the request is seen: the app does not wait for its
        /// link, and once it leaves the bus what the daemon knew of its connection is gone.
        let opener: PendingOpener
        let activationToken: String?
        let seenAt: ContinuousClock.Instant
    }

    static let portal: BusName = "org.freedesktop.portal.Desktop"
    static let capacity = 32
    static let lifetime: Duration = .seconds(30)
    /// How long the portal's `Open` waits for its request should the copy come second: they travel
    /// on two sockets, and the portal's own work between them takes milliseconds. An `Open` that
    /// comes sooner after the watch began waits for nothing: its request came before the watch (the
    /// `Open` that started the daemon).
    static let grace: Duration = .milliseconds(200)

    private struct State {
        var requests: [Request] = []
        var waiters: [Int: (uri: String, continuation: CheckedContinuation<Request?, Never>)] = [:]
        var nextWaiter = 0
        /// The portal's unique name while it has one.
        var portalOwner: BusName?
        var watchingSince: ContinuousClock.Instant?
    }

    private let state = Mutex(State())

    /// Starts watching, where the bus has a portal (running, or one it can start): the portal's owner
    /// on `connection`, the requests on a monitor connection of their own. Returns once both are in
    /// place; at once where there is no portal (nothing to watch: no connection, no thread).
    /// - Returns: whether it watches.
    /// - Throws: `BusError` when the bus refuses a monitor (then links through the portal keep no token).
    @discardableResult
    func watch(on connection: Connection, finding: @escaping @Sendable (BusName) -> PendingOpener) async throws -> Bool {
        let owners = try await connection.nameOwnerChanges(for: Self.portal)
        let owner = try await connection.nameOwner(of: Self.portal)
        if owner == nil {
            let activatable = try await connection.call(
                destination: .bus, path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus", member: "ListActivatableNames"
            ).decode([String].self)
            guard activatable.contains(Self.portal.rawValue) else { return false }
        }
        state.withLock { $0.portalOwner = owner }
        Task { [weak self] in
            for try await change in owners { self?.state.withLock { $0.portalOwner = change.newOwner } }
        }
        let monitor = try await Connection.session()
        let copies = try await monitor.monitor(matching: [
            MatchRule(kind: .methodCall, interface: "org.freedesktop.portal.OpenURI", member: "OpenURI"),
        ])
        state.withLock { $0.watchingSince = .now }
        Task { [weak self] in
            for try await copy in copies {
                guard let self, let sender = copy.sender,
                      let (_, uri, options) = try? copy.decode(String.self, String.self, [String: Variant].self)
                else { continue }
                let token = try? options["activation_token"]?.decode(as: String.self)
                self.record(Request(
                    uri: uri, caller: sender, opener: finding(sender), activationToken: token?.isEmpty == false ? token : nil,
                    seenAt: .now))
            }
            _ = monitor  // kept open for as long as the stream runs
        }
        return true
    }

    /// The request the portal's `Open` of `uri` passes on, when `caller` is the portal; nil for
    /// anyone else's `Open`, and when no request was seen (a moment's grace for its copy).
    func claim(_ uri: String, from caller: BusName) async -> Request? {
        enum Step { case none, found(Request), wait }
        let step: Step = state.withLock { state in
            guard let since = state.watchingSince, state.portalOwner == caller else { return .none }
            state.requests.removeAll { $0.seenAt.duration(to: .now) > Self.lifetime }
            if let index = state.requests.firstIndex(where: { $0.uri == uri }) { return .found(state.requests.remove(at: index)) }
            return since.duration(to: .now) < Self.grace ? .none : .wait
        }
        switch step {
        case .none: return nil
        case .found(let request): return request
        case .wait: return await awaitRequest(for: uri)
        }
    }

    /// The request of `uri` once its copy is read, or nil after `grace`, whichever comes first.
    private func awaitRequest(for uri: String) async -> Request? {
        await withCheckedContinuation { continuation in
            let id = state.withLock { state in
                defer { state.nextWaiter += 1 }
                state.waiters[state.nextWaiter] = (uri, continuation)
                return state.nextWaiter
            }
            Task { [weak self] in
                try? await Task.sleep(for: Self.grace)
                self?.resume(id, with: nil)
            }
        }
    }

    private func resume(_ waiter: Int, with request: Request?) {
        state.withLock { $0.waiters.removeValue(forKey: waiter) }?.continuation.resume(returning: request)
    }

    private func record(_ request: Request) {
        let waiter: CheckedContinuation<Request?, Never>? = state.withLock { state in
            if let (id, entry) = state.waiters.first(where: { $0.value.uri == request.uri }) {
                state.waiters[id] = nil
                return entry.continuation
            }
            state.requests.removeAll { $0.seenAt.duration(to: request.seenAt) > Self.lifetime }
            if state.requests.count >= Self.capacity { state.requests.removeFirst() }
            state.requests.append(request)
            return nil
        }
        waiter?.resume(returning: request)
    }
}
