internal import CDBus
internal import Glibc
import Synchronization

/// Two private libdbus connections to each other, made through a `DBusServer` that accepts one
/// connection and stops listening (`Connection.pair`).
enum PeerPairing {
    /// Names the sides of pairs: never reused in a process, so that code keeping callers by name
    /// (as the dispatcher does) can hold several pairs. A bus's unique names are `:1.N`.
    private static let counter = Atomic<UInt64>(0)

    /// Two fresh names, the first for the side that accepts.
    static func names() -> (accepting: BusName, connecting: BusName) {
        let first = counter.add(2, ordering: .relaxed).newValue - 1
        return (BusName(unchecked: ":peer.\(first)"), BusName(unchecked: ":peer.\(first + 1)"))
    }

    /// Listens in a fresh directory only this user may enter (`mkdtemp`, mode 0700: no other user can
    /// connect, and an abstract socket would be open to every process of this network namespace),
    /// connects, accepts that one connection, then stops listening, which removes the socket, and
    /// removes the directory. Runs on a thread of its own: it polls the server. Neither connection is
    /// authenticated yet; each side's loop does that.
    /// - Throws: `BusError` when the directory, the server or the connection cannot be made.
    static func connect() throws(BusError) -> (accepting: LibdbusReference, connecting: LibdbusReference) {
        let directory = try makePrivateDirectory()
        defer { rmdir(directory) }
        let listening = Listening()
        defer { withExtendedLifetime(listening) {} }  // the server calls back into it until it is released
        let escaped = directory.withCString { dbus_address_escape_value($0) }
        defer { dbus_free(escaped) }
        guard let escaped else { throw BusError(.noMemory, "libdbus cannot escape \(directory)") }
        let (listened, failure) = withScratchError { error in
            dbus_server_listen("unix:dir=" + String(cString: escaped), error)
        }
        guard let server = listened else {
            throw BusError(ErrorName(unchecked: failure?.name ?? ErrorName.failed.rawValue), failure?.message ?? "cannot listen in \(directory)")
        }
        defer {
            dbus_server_disconnect(server)
            dbus_server_unref(server)
        }
        try listening.hook(into: server)

        guard let address = dbus_server_get_address(server) else { throw BusError(.noMemory, "libdbus has no address for the server") }
        defer { dbus_free(address) }
        let (opened, openFailure) = withScratchError { error in dbus_connection_open_private(address, error) }
        guard let opened else {
            throw BusError(ErrorName(unchecked: openFailure?.name ?? ErrorName.failed.rawValue), openFailure?.message ?? "cannot connect to the server")
        }
        let connecting = LibdbusReference.privateConnection(adopting: opened)
        return (try listening.accept(), connecting)
    }

    /// `$TMPDIR/waypost-pair-XXXXXX` (or under `/tmp`), made by `mkdtemp` with mode 0700.
    private static func makePrivateDirectory() throws(BusError) -> String {
        let base = getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array((base + "/waypost-pair-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else {
            throw BusError(.ioError, "cannot make a private directory in \(base) (errno \(errno))")
        }
        return String(cString: made)
    }
}

/// What the listening server's callbacks fill in: its watches and the one connection it accepted.
/// Used on one thread only, the one that runs `PeerPairing.connect`.
private final class Listening {
    var watches: [OpaquePointer] = []
    var accepted: LibdbusReference?

    /// The server's watch and new-connection callbacks, with this object as their context
    /// (`dbus_server_set_auth_mechanisms`, `dbus_server_set_watch_functions`,
    /// `dbus_server_set_new_connection_function`). EXTERNAL only: the kernel's word for who connected,
    /// and no cookie file in the user's home.
    func hook(into server: OpaquePointer) throws(BusError) {
        let context = Unmanaged.passUnretained(self).toOpaque()
        let mechanismsSet = "EXTERNAL".withCString { external in
            var mechanisms: [UnsafePointer<CChar>?] = [external, nil]
            return dbus_server_set_auth_mechanisms(server, &mechanisms)
        }
        guard mechanismsSet != 0 else { throw BusError(.noMemory, "libdbus cannot set the server's mechanisms") }
        let watchesSet = dbus_server_set_watch_functions(
            server,
            { watch, context in
                Listening.from(context).watches.append(watch!)
                return 1
            },
            { watch, context in Listening.from(context).watches.removeAll { $0 == watch } },
            nil, context, nil)
        guard watchesSet != 0 else { throw BusError(.noMemory, "libdbus cannot watch the server") }
        dbus_server_set_new_connection_function(
            server,
            { _, connection, context in
                let listening = Listening.from(context)
                // Only the first: a connection nobody takes a reference to is closed by libdbus.
                guard listening.accepted == nil, let connection else { return }
                listening.accepted = LibdbusReference.privateConnection(adopting: dbus_connection_ref(connection))
            },
            context, nil)
    }

    /// Lets the server accept (`dbus_watch_handle` on its listening socket once `poll` finds it
    /// readable). The connection was made before this is called, so it waits in the socket's
    /// backlog; 25 s is a bound for a machine out of resources, not a figure.
    func accept() throws(BusError) -> LibdbusReference {
        let deadline = monotonicNanoseconds() &+ 25_000_000_000
        while accepted == nil {
            let enabled = watches.filter { dbus_watch_get_enabled($0) != 0 }
            var descriptors = enabled.map { pollfd(fd: dbus_watch_get_unix_fd($0), events: Int16(POLLIN), revents: 0) }
            let now = monotonicNanoseconds()
            guard !descriptors.isEmpty, now < deadline else { throw BusError(.noServer, "the pair's server accepted no connection") }
            let ready = poll(&descriptors, nfds_t(descriptors.count), Int32((deadline - now) / 1_000_000 + 1))
            if ready < 0 && errno != EINTR { throw BusError(.ioError, "cannot poll the pair's server (errno \(errno))") }
            for (index, watch) in enabled.enumerated() where descriptors[index].revents != 0 {
                _ = dbus_watch_handle(watch, DBUS_WATCH_READABLE.rawValue)
            }
        }
        return accepted!
    }

    static func from(_ context: UnsafeMutableRawPointer?) -> Listening {
        Unmanaged<Listening>.fromOpaque(context!).takeUnretainedValue()
    }
}

/// Whether a peer connection is authenticated yet (`done`, `failure` nil), or never will be.
struct PeerAuthentication: ~Copyable {
    var done = false
    var failure: BusError?
    var waiters: [CheckedContinuation<Void, any Error>] = []
}

extension ConnectionCore {
    /// Returns once libdbus has authenticated this peer connection (EXTERNAL): what `Hello` is on a bus.
    /// - Throws: `BusError` when the connection ended first.
    func authenticated() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let decided: BusError?? = authentication.withLock { state in
                guard state.done else {
                    state.waiters.append(continuation)
                    return .none
                }
                return .some(state.failure)
            }
            switch decided {
            case .none: break
            case .some(.none): continuation.resume()
            case .some(.some(let failure)): continuation.resume(throwing: failure)
            }
        }
    }

    /// On the loop thread, after each turn and as the loop ends: tells the waiters once libdbus has
    /// authenticated the connection (`dbus_connection_get_is_authenticated`), or that it ended first.
    func noteAuthentication(endedBy reason: ClosingReason? = nil) {
        guard !authentication.withLock({ $0.done }) else { return }
        let failure = reason.map {
            BusError(.authFailed, "the peer connection ended before it was authenticated: \($0.error.message)")
        }
        if failure == nil, dbus_connection_get_is_authenticated(connection.pointer) == 0 { return }
        let waiters = authentication.withLock { state in
            state.done = true
            state.failure = failure
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters {
            if let failure { waiter.resume(throwing: failure) } else { waiter.resume() }
        }
    }

    /// The process and user ids of the other side of a peer connection: libdbus's, from the
    /// credentials the accepting side reads as it authenticates (`dbus_connection_get_unix_process_id`,
    /// `dbus_connection_get_unix_user`). The connecting side gets none from libdbus, so it asks the
    /// kernel for the socket's (`getsockopt(SO_PEERCRED)`, which reads nothing from the socket).
    /// - Throws: `BusError` `Disconnected` once the connection is closed.
    func peerCredentials() throws(BusError) -> (pid: UInt32, uid: UInt32) {
        try ioGate.withLock { _ throws(BusError) in
            let pointer = connection.pointer
            guard dbus_connection_get_is_connected(pointer) != 0 else {
                throw BusError(.disconnected, "the peer connection is closed")
            }
            var pid: UInt = 0
            var uid: UInt = 0
            if dbus_connection_get_unix_process_id(pointer, &pid) != 0, dbus_connection_get_unix_user(pointer, &uid) != 0 {
                return (UInt32(pid), UInt32(uid))
            }
            var descriptor: Int32 = -1
            // `struct ucred`, which Glibc's module leaves out: pid, uid and gid, 32 bits each.
            var credentials: (pid: Int32, uid: UInt32, gid: UInt32) = (0, 0, 0)
            var length = socklen_t(MemoryLayout.size(ofValue: credentials))
            guard dbus_connection_get_socket(pointer, &descriptor) != 0,
                getsockopt(descriptor, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0, credentials.pid > 0
            else { throw BusError(.failed, "the peer's credentials are unknown (errno \(errno))") }
            return (UInt32(credentials.pid), credentials.uid)
        }
    }

    /// This process's own ids, for a peer connection asked about its own name.
    static func ownCredentials() -> (pid: UInt32, uid: UInt32) { (UInt32(getpid()), UInt32(getuid())) }
}

extension Message {
    /// Stamps a message received on a peer connection with the peer's name, as a bus stamps the
    /// sender of every message it passes on (`dbus_message_set_sender`; libdbus leaves received
    /// messages unlocked, as dbus-daemon relies on). Whatever sender the peer wrote is replaced:
    /// it could claim to be anyone. libdbus's own `Disconnected` is not the peer's.
    func stamp(sender: BusName) {
        if dbus_message_has_interface(reference.pointer, "org.freedesktop.DBus.Local") != 0 { return }
        _ = dbus_message_set_sender(reference.pointer, sender.rawValue)
    }
}
