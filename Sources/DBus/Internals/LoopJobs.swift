internal import Dispatch
internal import Glibc
import Synchronization

/// The jobs waiting for the loop thread, and the eventfd that wakes it. Made on the loop thread.
final class LoopJobs: Sendable {
    typealias Job = UnownedJob

    private struct State: ~Copyable {
        var queued: [Job] = []
        /// The buffer of the batch that ran last, emptied, for `queued` to take next: handing whole
        /// arrays back and forth allocates nothing per batch.
        var spare: [Job] = []
        /// Set when the loop has ended; from then on jobs go to `afterClose`.
        var loopEnded = false
        /// Run once the loop has next read and dispatched its input (`afterInput`).
        var afterInput: [@Sendable () -> Void] = []
    }

    private let state = Mutex(State())
    /// The connection's executors, which own this (hence unowned); set once, as they are made.
    private let executors = Mutex<(serial: UnownedSerialExecutor, task: UnownedTaskExecutor)?>(nil)
    /// Polled by the loop beside the connection's sockets.
    let wakeDescriptor: Int32
    private let wakePending = Atomic<Bool>(false)
    private let loopThread: pthread_t
    private let afterClose = DispatchQueue(label: "io.waypost.dbus.closed-connection")

    init(wakeDescriptor: Int32) {
        self.wakeDescriptor = wakeDescriptor
        self.loopThread = pthread_self()
    }

    func attach(serial: UnownedSerialExecutor, task: UnownedTaskExecutor) {
        executors.withLock { $0 = (serial, task) }
    }

    func enqueue(_ job: Job) {
        let ended = state.withLock { state in
            if !state.loopEnded { state.queued.append(job) }
            return state.loopEnded
        }
        if ended {
            afterClose.async { self.run(job) }
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

    var hasQueuedJobs: Bool { state.withLock { !$0.queued.isEmpty || !$0.afterInput.isEmpty } }

    /// Runs `body` on the loop once it has next read and dispatched what the sockets hold, so that
    /// work queued behind it comes after calls that arrived meanwhile; at once once the loop ended.
    func afterInput(_ body: @escaping @Sendable () -> Void) {
        let ended = state.withLock { state in
            if !state.loopEnded { state.afterInput.append(body) }
            return state.loopEnded
        }
        if ended { afterClose.async(execute: body) } else { wakeUnlessOnLoop() }
    }

    /// Called by the loop after dispatching its input.
    func runAfterInput() {
        let due = state.withLock { state in
            defer { state.afterInput = [] }
            return state.afterInput
        }
        for body in due { body() }
    }

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
            for job in batch { run(job) }
            batch.removeAll(keepingCapacity: true)
            state.withLock { $0.spare = batch }
        }
    }

    /// Called once as the loop ends: whatever is queued, and everything after, runs on `afterClose`
    /// in order.
    func loopEnded() {
        let (leftovers, bodies) = state.withLock { state in
            state.loopEnded = true
            defer { (state.queued, state.afterInput) = ([], []) }
            return (state.queued, state.afterInput)
        }
        for job in leftovers { afterClose.async { self.run(job) } }
        for body in bodies { afterClose.async(execute: body) }
    }

    /// Runs `job` isolated to the serial executor and on the task executor, whichever it was
    /// enqueued on: both are this one thread (or, once the loop ended, the one `afterClose` queue),
    /// so the claim holds, and the runtime then sees no switch between an actor living here and a
    /// task preferring this executor — each such switch would otherwise be another job.
    private func run(_ job: Job) {
        guard let (serial, task) = executors.withLock({ $0 }) else {
            preconditionFailure("a job was enqueued before the connection's executors were attached")
        }
        job.runSynchronously(isolatedTo: serial, taskExecutor: task)
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
