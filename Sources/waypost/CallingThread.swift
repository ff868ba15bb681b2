import Dispatch
import Synchronization

/// Runs one task's jobs on the thread that asks for its result, until it finishes.
///
/// `waypost open` makes a call and exits. Run as an async `main`, it would start the global
/// pool's threads only to wait on the bus; here the process's own thread runs the task, the
/// connection's thread does the bus work, and no other thread is started.
final class CallingThreadExecutor: TaskExecutor, Sendable {
    /// Jobs to run in order; `nil` marks the end of the task.
    private let queue = Mutex<[UnownedJob?]>([])
    private let ready = DispatchSemaphore(value: 0)

    private init() {}

    func enqueue(_ job: UnownedJob) { push(job) }

    private func push(_ job: UnownedJob?) {
        queue.withLock { $0.append(job) }
        ready.signal()
    }

    /// Runs `body` as a task whose jobs run on the calling thread; returns its result.
    static func run<Result: Sendable>(_ body: @escaping @Sendable () async -> Result) -> Result {
        let executor = CallingThreadExecutor()
        let result = Mutex<Result?>(nil)
        Task(executorPreference: executor) {
            let value = await body()
            result.withLock { $0 = value }
            executor.push(nil)
        }
        while true {
            executor.ready.wait()
            guard let job = executor.queue.withLock({ $0.removeFirst() }) else { break }
            job.runSynchronously(on: executor.asUnownedTaskExecutor())
        }
        return result.withLock { $0! }
    }
}
