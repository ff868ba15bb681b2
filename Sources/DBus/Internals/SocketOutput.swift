internal import Glibc

/// What the connection writes to the bus socket itself, in order: a message goes straight to the
/// socket when nothing waits before it, and what the socket does not take at once waits here
/// (the backlog) until the loop sees the socket writable. No sender ever waits for the bus.
///
/// Guarded by `ConnectionCore.ioGate`, with every other write to the socket.
struct SocketOutput: ~Copyable {
    private var backlog: [UInt8] = []
    /// How much of `backlog` the socket has taken.
    private var taken = 0

    /// Nothing waits to be written.
    var isEmpty: Bool { taken == backlog.count }

    /// Writes `message` with `serial` after what waits, as much as the socket takes now; the rest waits.
    /// - Returns: the errno when the socket failed (the stream may then end mid-message).
    mutating func send(_ message: OutgoingMessage, serial: UInt32, on socket: Int32) -> Int32? {
        if !isEmpty {
            backlog.append(contentsOf: message.bytes(serial: serial))
            return flush(on: socket)
        }
        let (written, failure) = message.write(to: socket, serial: serial)
        if failure == nil, written < message.bytes.count {
            backlog = Array(message.bytes(serial: serial)[written...])
            taken = 0
        }
        return failure
    }

    /// Writes what waits, as much as the socket takes now.
    /// - Returns: the errno when the socket failed.
    mutating func flush(on socket: Int32) -> Int32? {
        while taken < backlog.count {
            let sent = backlog.withUnsafeBytes { Self.send(socket, UnsafeRawBufferPointer(rebasing: $0[taken...])) }
            if sent >= 0 {
                taken += sent
            } else if errno == EAGAIN || errno == EWOULDBLOCK {
                break
            } else if errno != EINTR {
                return errno
            }
        }
        if isEmpty { discard() }
        return nil
    }

    /// Forgets what waits, once the socket has failed.
    mutating func discard() {
        backlog = []
        taken = 0
    }

    /// Writes what waits, waiting up to `timeout` milliseconds each time the socket is full: for
    /// the connection's last moments, on the loop thread.
    mutating func drain(on socket: Int32, timeout: Int32) {
        while !isEmpty, flush(on: socket) == nil, !isEmpty {
            var writable = pollfd(fd: socket, events: Int16(POLLOUT), revents: 0)
            if poll(&writable, 1, timeout) <= 0 { return }
        }
    }

    /// One non-blocking `send` that never raises SIGPIPE.
    static func send(_ socket: Int32, _ bytes: UnsafeRawBufferPointer) -> Int {
        Glibc.send(socket, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
    }
}
