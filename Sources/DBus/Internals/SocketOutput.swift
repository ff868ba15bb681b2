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
        let bytes = message.bytes(serial: serial)
        if !isEmpty {
            backlog.append(contentsOf: bytes)
            return flush(on: socket)
        }
        let (written, failure) = bytes.withUnsafeBytes { Self.write($0, to: socket) }
        if failure == nil, written < bytes.count {
            backlog = Array(bytes[written...])
            taken = 0
        }
        return failure
    }

    /// Writes what waits, as much as the socket takes now.
    /// - Returns: the errno when the socket failed.
    mutating func flush(on socket: Int32) -> Int32? {
        let (written, failure) = backlog.withUnsafeBytes { Self.write(UnsafeRawBufferPointer(rebasing: $0[taken...]), to: socket) }
        taken += written
        if isEmpty { discard() }
        return failure
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

    /// Writes as much of `bytes` as the non-blocking stream socket takes now, never raising SIGPIPE.
    /// Returns how many bytes it took, and the errno when it failed.
    private static func write(_ bytes: UnsafeRawBufferPointer, to socket: Int32) -> (written: Int, failure: Int32?) {
        var written = 0
        while written < bytes.count {
            let sent = Glibc.send(socket, bytes.baseAddress! + written, bytes.count - written, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
            if sent >= 0 {
                written += sent
            } else if errno == EAGAIN || errno == EWOULDBLOCK {
                break
            } else if errno != EINTR {
                return (written, errno)
            }
        }
        return (written, nil)
    }
}
