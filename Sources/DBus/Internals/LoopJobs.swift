internal import Dispatch
internal import Glibc
import Synchronization

/// The jobs waiting for the loop thread, and the eventfd that wakes it. Made on the loop thread.
final class LoopJobs: Sendable {
    /// A job and the face of the executor it was enqueued on: a task's job runs on the task executor
    /// (so it may call nonisolated async code without being queued again), an actor's isolated to
    /// the serial executor. Unowned: both are owned by the connection's `ConnectionExecutor`.
    struct Job {
        enum Executor {
            case task(UnownedTaskExecutor)
            case serial(UnownedSerialExecutor)
        }
        let job: UnownedJob
        let on: Executor
    }

    private struct State: ~Copyable {
        var queued: [Job] = []
        /// The buffer of the batch that ran last, emptied, for `queued` to take next: handing whole
        /// arrays back and forth allocates nothing per batch.
        var spare: [Job] = []
        /// Set when the loop has ended; from then on jobs go to `afterClose`.
        var loopEnded = false
    }

    private let state = Mutex(State())
    /// Polled by the loop beside the connection's sockets.
    let wakeDescriptor: Int32
    private let wakePending = Atomic<Bool>(false)
    private let loopThread: pthread_t
    private let afterClose = DispatchQueue(label: "io.waypost.dbus.closed-connection")

    init(wakeDescriptor: Int32) {
        self.wakeDescriptor = wakeDescriptor
        self.loopThread = pthread_self()
    }

    func enqueue(_ job: Job) {
        let ended = state.withLock { state in
            if !state.loopEnded { state.queued.append(job) }
            return state.loopEnded
        }
        if ended {
            afterClose.async { Self.run(job) }
        } else {
            wakeUnlessOnLoop()
        }
    }

    func checkIsolated() {
        if state.withLock({ $0.loopEnded }) {
            dispatchPrecondition(condition: .onQueue(afterClose))
        } else {
            precondition(isOnLoop, "not on the connection's thread")
        }
    }

    var isOnLoop: Bool { pthread_equal(pthread_self(), loopThread) != 0 }

    var hasQueuedJobs: Bool { state.withLock { !$0.queued.isEmpty } }

    /// Runs the queued jobs and those they queue, up to a bound: hops between tasks and actors here
    /// cost no poll, and a task that keeps yielding cannot starve the connection.
    func runQueuedJobs() {
        for _ in 0..<64 {
            var batch = state.withLock { state in
                let batch = state.queued
                state.queued = state.spare
                state.spare = []
                return batch
            }
            if batch.isEmpty { return }
            for job in batch { Self.run(job) }
            batch.removeAll(keepingCapacity: true)
            state.withLock { $0.spare = batch }
        }
    }

    /// Called once as the loop ends: whatever is queued, and everything after, runs on `afterClose`
    /// in order.
    func loopEnded() {
        let leftovers = state.withLock { state in
            state.loopEnded = true
            defer { state.queued = [] }
            return state.queued
        }
        for job in leftovers { afterClose.async { Self.run(job) } }
    }

    private static func run(_ job: Job) {
        switch job.on {
        case .task(let executor): job.job.runSynchronously(on: executor)
        case .serial(let executor): job.job.runSynchronously(on: executor)
        }
    }

    /// Wakes the loop thread from another thread; coalesced so a burst costs one write.
    func wakeUnlessOnLoop() {
        if isOnLoop { return }
        wake()
    }

    func wake() {
        if wakePending.exchange(true, ordering: .sequentiallyConsistent) { return }
        var one: UInt64 = 1
        _ = write(wakeDescriptor, &one, 8)
    }

    /// The loop read the eventfd: the next wake must write again.
    func woke() {
        var count: UInt64 = 0
        _ = read(wakeDescriptor, &count, 8)
        wakePending.store(false, ordering: .sequentiallyConsistent)
    }
}
