/// The thread that owns a connection, as an executor for tasks (and, through `serial`, for actors).
///
/// Code that runs here talks to the bus without crossing threads: a reply resumes its caller on the
/// thread that read it, and a method handler answers on the thread that received the call — the way
/// a C program around one libdbus loop works. Use it for hot paths:
///
/// ```swift
/// try await withTaskExecutorPreference(connection.executor) { try await chatty(connection) }
/// actor Service {  // keeps `connection` alive
///     nonisolated var unownedExecutor: UnownedSerialExecutor { connection.executor.serial.asUnownedSerialExecutor() }
/// }
/// ```
///
/// Work here must never block (no `sleep`, no blocking I/O, no waiting on a lock held across an
/// `await`): while it runs, the connection reads and writes nothing. After the connection closes,
/// jobs still run, one at a time, on a queue of their own.
public final class ConnectionExecutor: TaskExecutor {
    /// The same thread as a serial executor, for actors that live on the connection's thread.
    public let serial: Serial
    let loop: LoopJobs

    init(loop: LoopJobs) {
        self.loop = loop
        serial = Serial(loop: loop)
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        loop.enqueue(LoopJobs.Job(job: UnownedJob(job), on: .task(asUnownedTaskExecutor())))
    }

    /// The connection's thread as a serial executor (kept alive by its `ConnectionExecutor`, which
    /// the connection keeps alive).
    public final class Serial: SerialExecutor {
        let loop: LoopJobs

        init(loop: LoopJobs) { self.loop = loop }

        public func enqueue(_ job: consuming ExecutorJob) {
            loop.enqueue(LoopJobs.Job(job: UnownedJob(job), on: .serial(asUnownedSerialExecutor())))
        }

        public func asUnownedSerialExecutor() -> UnownedSerialExecutor { UnownedSerialExecutor(ordinary: self) }

        public func checkIsolated() { loop.checkIsolated() }
    }

    /// Whether the calling code runs on this connection's thread (for assertions).
    public var isCurrent: Bool { loop.isOnLoop }
}
