import Dispatch
import NativeMessaging
import SystemPackage
import Synchronization

// The browser host's standard input and output, and the limit on answers in flight.

/// The browser's messages as they arrive on stdin, read on a thread of their own (a blocking
/// `read`, never on the concurrency pool); the stream ends when the browser closes the pipe. At
/// most `ahead` chunks are read before the reader takes one (`consumed`): what the host has not
/// taken stays in the pipe, and a browser that writes faster than it is answered waits.
final class StandardInput: Sendable {
    let chunks: AsyncStream<[UInt8]>
    private let room: DispatchSemaphore
    static let ahead = 2

    init() {
        let (stream, sink) = AsyncStream<[UInt8]>.makeStream()
        // Made empty and filled: libdispatch traps when a semaphore goes with less than it began with.
        let room = DispatchSemaphore(value: 0)
        for _ in 0..<Self.ahead { room.signal() }
        (chunks, self.room) = (stream, room)
        DispatchQueue(label: "waypost.browser-host.stdin").async {
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            while true {
                room.wait()
                guard let count = try? buffer.withUnsafeMutableBytes({ try FileDescriptor.standardInput.read(into: $0) }), count > 0
                else { break }
                sink.yield(Array(buffer[0 ..< count]))
            }
            sink.finish()
        }
    }

    /// The reader took a chunk apart: another may be read.
    @Sendable func consumed() { room.signal() }
}

/// A count of free places, awaited when none is left (the host's answers in flight).
final class Slots: Sendable {
    private struct State {
        var free: Int
        var waiting: [CheckedContinuation<Void, Never>] = []
    }
    private let state: Mutex<State>

    init(_ count: Int) { state = Mutex(State(free: count)) }

    /// Takes a place, waiting for one to be given back when none is free.
    func take() async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state in
                if state.free > 0 {
                    state.free -= 1
                    return true
                }
                state.waiting.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Gives a place back: to the first waiting, else to the free count.
    func give() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if state.waiting.isEmpty {
                state.free += 1
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}

/// Framed messages to the browser on stdout, one whole message at a time.
final class StandardOutput: Sendable {
    private let lock = Mutex(())

    func send(_ message: HostMessage) {
        let bytes: [UInt8]
        do { bytes = try FrameReader.frame(message.json) } catch {
            bytes = (try? FrameReader.frame(HostMessage(id: message.id, refusing: error).json)) ?? []
        }
        // A failed write means the browser went away; stdin's end stops us.
        lock.withLock { _ in _ = try? FileDescriptor.standardOutput.writeAll(bytes) }
    }
}
