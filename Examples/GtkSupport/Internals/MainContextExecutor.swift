internal import CGtk

/// GLib's default main context as a serial executor: each job runs from an idle source, on the
/// thread running the main loop (the main thread), where every GTK call must be made.
final class MainContextExecutor: SerialExecutor {
    static let shared = MainContextExecutor()

    /// Queues the job with `g_idle_add_full` (thread-safe; it wakes the loop). Never runs it at
    /// once, even from the loop's own thread: a job must not run inside another's enqueue.
    func enqueue(_ job: consuming ExecutorJob) {
        let pending = Unmanaged.passRetained(PendingJob(UnownedJob(job))).toOpaque()
        g_idle_add_full(G_PRIORITY_DEFAULT, { data in
            let pending = Unmanaged<PendingJob>.fromOpaque(data!).takeRetainedValue()
            pending.job.runSynchronously(on: MainContextExecutor.shared.asUnownedSerialExecutor())
            return 0  // G_SOURCE_REMOVE
        }, pending, nil)
    }

    /// Called where Swift cannot tell by itself (a GTK signal handler): the loop's thread owns the context.
    func checkIsolated() {
        precondition(g_main_context_is_owner(g_main_context_default()) != 0, "GTK code ran off the main loop's thread")
    }
}

/// A job on its way through the main loop.
private final class PendingJob: Sendable {
    let job: UnownedJob
    init(_ job: UnownedJob) { self.job = job }
}

extension GtkActor {
    /// Runs GtkActor code from a C callback of the main loop (a signal handler), which Swift does not
    /// know to be on the actor's thread; checked, as `MainActor.assumeIsolated` does it.
    static func assumeIsolated(_ operation: @GtkActor () -> Void) {
        MainContextExecutor.shared.checkIsolated()
        withoutActuallyEscaping(operation) { operation in
            unsafeBitCast(operation, to: (() -> Void).self)()
        }
    }
}
