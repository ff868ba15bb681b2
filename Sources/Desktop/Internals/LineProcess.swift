internal import CLinux
internal import Glibc
import Synchronization

/// A child process spoken to a line at a time: what is sent is written to its standard input, and
/// what it prints (standard output and error together) is read on a thread of its own. It ends when
/// its input is closed (`close`) or by itself; then `nextLine` answers nil and the child is reaped.
/// `posix_spawn`, `socketpair`, `pipe2`, `send`, `read`, `waitpid`.
public final class LineProcess: Sendable {
    public let pid: Int32
    private let input: Int32
    private let state = Mutex<(lines: [String], ended: Bool, waiter: CheckedContinuation<String?, Never>?, inputOpen: Bool)>(
        ([], false, nil, true))
    /// A line longer than this is cut (the rest of it dropped).
    public static let lineLimit = 64 * 1024

    /// Starts `program` with `arguments`, this process's environment changed by `environment`
    /// (nil removes a variable).
    /// - Throws: `LineProcessError` naming the program and the call that failed.
    public init(_ program: String, _ arguments: [String], environment: [String: String?] = [:]) throws(LineProcessError) {
        // The child's input is a socket, so that a write after it ended fails (MSG_NOSIGNAL) rather
        // than raising SIGPIPE in the daemon.
        var toChild: [Int32] = [-1, -1]
        var fromChild: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &toChild) == 0 else {
            throw LineProcessError(program: program, call: "socketpair", code: errno)
        }
        guard waypost_pipe2(&fromChild, O_CLOEXEC) == 0 else {
            let code = errno
            toChild.forEach { _ = Glibc.close($0) }
            throw LineProcessError(program: program, call: "pipe2", code: code)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, toChild[0], 0)
        posix_spawn_file_actions_adddup2(&actions, fromChild[1], 1)
        posix_spawn_file_actions_adddup2(&actions, fromChild[1], 2)
        var variables: [String] = []
        var index = 0
        while let entry = environ[index] {
            let text = String(cString: entry)
            let name = text.split(separator: "=", maxSplits: 1).first.map(String.init) ?? text
            if environment[name] == nil { variables.append(text) }
            index += 1
        }
        for case let (name, value?) in environment { variables.append("\(name)=\(value)") }
        let argv = ([program] + arguments).map { strdup($0) } + [nil]
        let envp = variables.map { strdup($0) } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var child: pid_t = 0
        let spawned = posix_spawn(&child, program, &actions, nil, argv, envp)
        _ = Glibc.close(toChild[0])
        _ = Glibc.close(fromChild[1])
        guard spawned == 0 else {
            _ = Glibc.close(toChild[1])
            _ = Glibc.close(fromChild[0])
            throw LineProcessError(program: program, call: "posix_spawn", code: spawned)
        }
        pid = child
        input = toChild[1]
        let output = fromChild[0]
        startThread { [self] in readLines(from: output) }
    }

    /// Writes `line` and a newline to the child's input.
    /// - Returns: false when the child no longer reads (it ended, or its input was closed).
    public func send(_ line: String) -> Bool {
        guard state.withLock({ $0.inputOpen }) else { return false }
        let bytes = Array((line + "\n").utf8)
        var written = 0
        while written < bytes.count {
            let result = bytes.withUnsafeBytes { Glibc.send(input, $0.baseAddress! + written, bytes.count - written, Int32(MSG_NOSIGNAL)) }
            if result < 0, errno == EINTR { continue }
            guard result > 0 else { return false }
            written += result
        }
        return true
    }

    /// The child's next line; nil once it ended and every line was read.
    public func nextLine() async -> String? {
        await withCheckedContinuation { continuation in
            let ready: String?? = state.withLock { state in
                if !state.lines.isEmpty { return .some(state.lines.removeFirst()) }
                if state.ended { return .some(nil) }
                state.waiter = continuation
                return .none
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// Whether the child ended.
    public var hasEnded: Bool { state.withLock { $0.ended } }

    /// Closes the child's input: a child that reads until the end of its input then ends.
    public func close() {
        let wasOpen = state.withLock { state in
            defer { state.inputOpen = false }
            return state.inputOpen
        }
        if wasOpen { _ = Glibc.close(input) }
    }

    deinit { close() }

    private func readLines(from descriptor: Int32) {
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress!, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            for byte in buffer[..<count] {
                if byte == UInt8(ascii: "\n") {
                    deliver(String(decoding: pending, as: UTF8.self))
                    pending.removeAll(keepingCapacity: true)
                } else if pending.count < Self.lineLimit {
                    pending.append(byte)
                }
            }
        }
        _ = Glibc.close(descriptor)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        let waiter = state.withLock { state in
            state.ended = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: nil)
    }

    private func deliver(_ line: String) {
        let waiter = state.withLock { state -> CheckedContinuation<String?, Never>? in
            guard let waiter = state.waiter else {
                state.lines.append(line)
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume(returning: line)
    }
}

/// A child process could not be started.
public struct LineProcessError: Error, Sendable, Equatable, CustomStringConvertible {
    public let program: String
    public let call: String
    public let code: Int32
    public var description: String { "\(program) could not be started: \(call): \(String(cString: strerror(code)))" }
}
