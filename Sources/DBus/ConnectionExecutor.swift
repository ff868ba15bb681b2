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
        loop.attach(serial: serial.asUnownedSerialExecutor(), task: asUnownedTaskExecutor())
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        loop.enqueue(UnownedJob(job))
    }

    /// The connection's thread as a serial executor (kept alive by its `ConnectionExecutor`, which
    /// the connection keeps alive).
    public final class Serial: SerialExecutor {
        let loop: LoopJobs

        init(loop: LoopJobs) { self.loop = loop }

        public func enqueue(_ job: consuming ExecutorJob) {
            loop.enqueue(UnownedJob(job))
        }

        public func asUnownedSerialExecutor() -> UnownedSerialExecutor { UnownedSerialExecutor(ordinary: self) }

        public func checkIsolated() { loop.checkIsolated() }
    }

    /// Runs `body` on this connection's thread once it has next read and dispatched what arrived:
    /// a server uses it to let one peer's next call wait until other peers' calls that arrived
    /// meanwhile have started (it takes turns between peers). Runs at once after the connection closed.
    public func afterPendingInput(_ body: @escaping @Sendable () -> Void) {
        loop.afterInput(body)
    }

    /// Whether the calling code runs on this connection's thread (for assertions).
    public var isCurrent: Bool { loop.isOnLoop }
}

/// The connection's thread as an actor, to start tasks isolated to `ConnectionExecutor.serial`
/// (a task started elsewhere would begin on the task executor and hop to the serial one).
actor LoopIsolation {
    private let executor: ConnectionExecutor

    init(executor: ConnectionExecutor) { self.executor = executor }

    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.serial.asUnownedSerialExecutor() }

    /// Starts `operation` as a task whose first job runs isolated to this actor. It also prefers the
    /// connection's task executor: a reply resumes its awaiting task on the generic executor before
    /// the task hops back to its actor, and that must be this thread, not the global pool.
    func start(_ operation: nonisolated(nonsending) sending @escaping () async -> Void) {
        // The closure uses `self`, so the task is isolated to this actor from its first job.
        Task(executorPreference: executor) { await self.perform(operation) }
    }

    private func perform(_ operation: nonisolated(nonsending) sending () async -> Void) async {
        await operation()
    }
}
