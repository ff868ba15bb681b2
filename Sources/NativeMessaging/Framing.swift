/// The browsers' native-messaging framing (Chrome's and Firefox's alike): each message is its
/// length as a 32-bit unsigned integer in the machine's byte order, then that many bytes of UTF-8
/// JSON. Chrome sends at most 4 GiB to a host and takes at most 1 MB back; Waypost's host takes at
/// most `limit` bytes per message (its messages are a URL or a domain) and refuses a longer one
/// before reading it, so a page cannot make it buffer megabytes.
public struct FrameReader: Sendable {
    /// The largest message the host reads: 64 KiB, the dispatcher's own limit on a URI.
    public static let limit = 64 * 1024
    /// The largest message the browser takes from a host (Chrome's documented 1 MB).
    public static let replyLimit = 1024 * 1024

    private var buffer: [UInt8] = []
    private var start = 0

    public init() {}

    /// Adds bytes read from the browser.
    public mutating func append(_ bytes: some Collection<UInt8>) {
        if start > 0 && start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next whole message, nil until one has arrived.
    /// - Throws: `NativeMessagingError.tooLarge` as soon as a length over `limit` is read: the
    ///   stream cannot be followed past it, so the host stops.
    public mutating func next() throws(NativeMessagingError) -> [UInt8]? {
        guard buffer.count - start >= 4 else { return nil }
        let length = Int(UInt32(littleEndianBytes: buffer[start ..< start + 4]))
        guard length <= Self.limit else { throw .tooLarge(length: length, limit: Self.limit) }
        guard buffer.count - start - 4 >= length else { return nil }
        let message = Array(buffer[start + 4 ..< start + 4 + length])
        start += 4 + length
        if start > 4096 && start * 2 > buffer.count {
            buffer.removeFirst(start)
            start = 0
        }
        return message
    }

    /// Bytes received that do not make a whole message yet (what is left when the browser hangs up).
    public var pending: Int { buffer.count - start }

    /// `message` framed for the browser.
    /// - Throws: `replyTooLarge` for a message over Chrome's 1 MB.
    public static func frame(_ message: [UInt8]) throws(NativeMessagingError) -> [UInt8] {
        guard message.count <= replyLimit else { throw .replyTooLarge(length: message.count, limit: replyLimit) }
        let length = UInt32(message.count)
        return (0 ..< 4).map { UInt8(truncatingIfNeeded: length >> (8 * $0)) } + message
    }
}

extension UInt32 {
    /// The machine's byte order is little-endian on every platform Waypost builds for (x86-64, arm64).
    init(littleEndianBytes bytes: ArraySlice<UInt8>) {
        self = bytes.reversed().reduce(0) { $0 << 8 | UInt32($1) }
    }
}
