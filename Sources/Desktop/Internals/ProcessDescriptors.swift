internal import CLinux
internal import Glibc

// The system calls behind `ProcessHandle` and `ProcessExits`: pidfds, poll, a wake-up pipe, and the
// watching thread. Each wrapper names the C call it makes.

/// A pidfd for process `pid`, close-on-exec, or the `errno` that refused it. `pidfd_open`.
func openProcessDescriptor(_ pid: Int32) -> Result<Int32, SystemErrno> {
    let descriptor = waypost_pidfd_open(pid)
    return descriptor >= 0 ? .success(descriptor) : .failure(SystemErrno(code: errno))
}

/// Whether the process of pidfd `descriptor` has exited (its descriptor reads ready). `poll`, no wait.
func processDescriptorHasExited(_ descriptor: Int32) -> Bool {
    var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
    return poll(&entry, 1, 0) == 1 && entry.revents != 0
}

/// Closes a descriptor this module opened. `close`.
func closeDescriptor(_ descriptor: Int32) { _ = close(descriptor) }

/// A pipe whose read end wakes the watching thread's `poll`. `pipe2` (close-on-exec, non-blocking).
func makeWakePipe() -> (read: Int32, write: Int32) {
    var ends: [Int32] = [-1, -1]
    let made = waypost_pipe2(&ends, O_CLOEXEC | O_NONBLOCK)
    precondition(made == 0, "cannot make the process watch's pipe: \(errnoMessage(errno))")
    return (ends[0], ends[1])
}

/// Wakes the thread polling `pipe`'s read end. `write`; a full pipe is awake already.
func wake(_ pipe: (read: Int32, write: Int32)) {
    var byte: UInt8 = 1
    _ = write(pipe.write, &byte, 1)
}

/// Empties the wake-up pipe. `read` until it would block.
func drain(_ pipe: (read: Int32, write: Int32)) {
    var bytes = [UInt8](repeating: 0, count: 64)
    while read(pipe.read, &bytes, bytes.count) > 0 {}
}

/// Waits until one of `descriptors` is readable; returns the indices of those that are. `poll`.
func waitForReadable(_ descriptors: [Int32]) -> [Int] {
    var entries = descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
    let count = poll(&entries, nfds_t(entries.count), -1)
    guard count > 0 else { return [] }  // EINTR: ask again
    return entries.indices.filter { entries[$0].revents != 0 }
}

/// Runs `body` on a detached thread of its own, for the process's life. `pthread_create`.
func startThread(_ body: @escaping @Sendable () -> Void) {
    final class Body: Sendable {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }
    let context = Unmanaged.passRetained(Body(body)).toOpaque()
    var thread = pthread_t()
    let created = pthread_create(&thread, nil, { context in
        Unmanaged<Body>.fromOpaque(context!).takeRetainedValue().run()
        return nil
    }, context)
    precondition(created == 0, "cannot start the process watch thread: error \(created)")
    pthread_detach(thread)
}
