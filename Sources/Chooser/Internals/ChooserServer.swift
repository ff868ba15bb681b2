internal import CGtkRuntime
internal import Glibc

/// `waypost choose --serve` once GTK is started: requests read from `input` inside GLib's main loop
/// (a `g_unix_fd_add` watch, reads that never block), one window at a time, one line out for each
/// request. Everything runs on the thread that initialised GTK.
final class ChooserServer {
    /// The longest line read, without its newline; a longer one is answered `error` and skipped.
    static let lineLimit = 64 * 1024

    /// What the reader found, in the order it found it.
    private enum Incoming {
        case line([UInt8])
        /// A line over `lineLimit` bytes, skipped up to its newline.
        case tooLong
        /// Bytes after the last newline when the input ended.
        case unterminated
    }

    private let input: Int32
    private var incoming: [Incoming] = []
    /// The line being read, up to `lineLimit` bytes.
    private var partial: [UInt8] = []
    /// Skipping the rest of a line over the limit.
    private var skipping = false
    /// The input reached its end (or failed).
    private var ended = false
    /// The watch's tag while it is installed.
    private var watch: UInt32? = nil
    private var chunk = [UInt8](repeating: 0, count: 16 * 1024)
    /// The window of the request being answered.
    private var window: ChooserWindow? = nil

    init(input: Int32) { self.input = input }

    /// Serves until the input ends (a window still open is cancelled and answered) or `write`
    /// fails (the reader is gone; a window still open is closed unanswered).
    func run(write: (String) -> Bool) -> ServeEnd {
        let flags = fcntl(input, F_GETFL)
        if flags >= 0 { _ = fcntl(input, F_SETFL, flags | O_NONBLOCK) }
        defer { if flags >= 0 { _ = fcntl(input, F_SETFL, flags) } }
        watch = gtk.g_unix_fd_add(
            input, UInt32(WAYPOST_G_IO_IN | WAYPOST_G_IO_HUP | WAYPOST_G_IO_ERR | WAYPOST_G_IO_NVAL), onInputReady,
            Unmanaged.passUnretained(self).toOpaque())
        defer { if let watch { _ = gtk.g_source_remove(watch) } }

        while true {
            if let current = window {
                if let answer = current.answer {
                    current.close()
                    window = nil
                    guard write(answer.line) else { return .outputClosed }
                    continue
                }
                if ended {
                    current.cancel()
                    continue
                }
            } else if !incoming.isEmpty {
                let next = incoming.removeFirst()
                if let line = respond(to: next), !write(line) { return .outputClosed }
                continue
            } else if ended {
                return .endOfInput
            }
            _ = gtk.g_main_context_iteration(nil, 1)
        }
    }

    /// Opens the window `next` asks for, or returns the line that answers it at once: `error` for a
    /// line that does not read, `cancel` for a request read before the input ended but reached
    /// after (no one is left to choose).
    private func respond(to next: Incoming) -> String? {
        switch next {
        case .tooLong:
            return servedErrorLine("the line is longer than \(Self.lineLimit) bytes")
        case .unterminated:
            return servedErrorLine("the input ended inside a line")
        case .line(let bytes):
            let served: ServedRequest
            do { served = try ServedRequest(line: bytes) } catch { return servedErrorLine(error.reason) }
            if ended { return ChooserAnswer.cancel.line }
            let opened = ChooserWindow(served.request, token: served.token)
            opened.show()
            window = opened
            return nil
        }
    }

    /// Reads all there is without blocking. Returns false, removing the watch, at the end of the
    /// input or on an error reading it (both end the serving).
    fileprivate func readAvailable() -> Bool {
        while true {
            let count = chunk.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
            if count > 0 {
                take(chunk[..<count])
                continue
            }
            if count < 0, errno == EINTR { continue }
            if count < 0, errno == EAGAIN || errno == EWOULDBLOCK { return true }
            if !partial.isEmpty { incoming.append(.unterminated) }
            partial = []
            ended = true
            watch = nil
            return false
        }
    }

    /// Splits `bytes` into lines, continuing the partial one.
    private func take(_ bytes: ArraySlice<UInt8>) {
        var rest = bytes[...]
        while !rest.isEmpty {
            let newline = rest.firstIndex(of: 0x0A)
            let piece = rest[..<(newline ?? rest.endIndex)]
            if !skipping {
                if partial.count + piece.count > Self.lineLimit {
                    incoming.append(.tooLong)
                    partial = []
                    skipping = true
                } else {
                    partial.append(contentsOf: piece)
                }
            }
            guard let newline else { return }
            if !skipping { incoming.append(.line(partial)) }
            partial = []
            skipping = false
            rest = rest[rest.index(after: newline)...]
        }
    }
}

/// How serving ended.
public enum ServeEnd: Sendable, Hashable {
    /// Stdin reached its end: the daemon is done with the chooser.
    case endOfInput
    /// An answer could not be written: no one reads stdout any more.
    case outputClosed
}

/// GLib's watch on the input: G_IO_IN, G_IO_HUP, G_IO_ERR or G_IO_NVAL, all of them read to
/// find out which (an error or the end of the input ends the watch).
private let onInputReady: WaypostUnixFDSourceFunc = { _, _, data in
    Unmanaged<ChooserServer>.fromOpaque(data!).takeUnretainedValue().readAvailable() ? 1 : 0
}
