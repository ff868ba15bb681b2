// A connection confined to one serial queue: the store's writer is one, its reader another.
import Dispatch
import Synchronization

/// One connection, opened on its queue at first use and only ever used there, so that SQLite runs
/// on the queue's thread and never on a caller's (the daemon's bus connection, Swift's pool).
final class SerialConnection: Sendable {
    private let queue: DispatchQueue
    /// Nil until opened, and after `close()`. Locked only by the queue's own work (and `close`),
    /// so the lock is never contended on the way to SQLite.
    private let connection = Mutex<Connection?>(nil)
    private let open: @Sendable () throws(SQLiteError) -> Connection

    /// - Parameter open: makes the connection ready (pragmas, schema); run on the queue, again after
    ///   each failure, so a file that could not be opened is tried again by the next use.
    init(label: String, open: @escaping @Sendable () throws(SQLiteError) -> Connection) {
        queue = DispatchQueue(label: label)
        self.open = open
    }

    /// Runs `work` on the queue after what was asked before it.
    func async(_ work: @escaping @Sendable () -> Void) { queue.async(execute: work) }

    /// Runs `body` on the queue, now if it is free, and waits for it (at start, never on a
    /// connection's thread).
    func sync<Value: Sendable>(_ body: @Sendable (Connection) throws(SQLiteError) -> Value) -> Result<Value, SQLiteError> {
        queue.sync { withConnection(body) }
    }

    /// Runs `body` on the queue; the caller is suspended, not blocked.
    func run<Value: Sendable>(_ body: @escaping @Sendable (Connection) throws(SQLiteError) -> Value) async throws(SQLiteError) -> Value {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Value, SQLiteError>, Never>) in
            queue.async { continuation.resume(returning: self.withConnection(body)) }
        }
        return try result.get()
    }

    /// `body` with the connection, opened first when it is not. Only on the queue.
    func withConnection<Value: Sendable>(_ body: (Connection) throws(SQLiteError) -> Value) -> Result<Value, SQLiteError> {
        dispatchPrecondition(condition: .onQueue(queue))
        return connection.withLock { connection -> Result<Value, SQLiteError> in
            do throws(SQLiteError) {
                if connection == nil { connection = try self.open() }
                return .success(try body(connection!))
            } catch {
                return .failure(error)
            }
        }
    }

    /// Closes the connection once what runs on it now has finished; the next use opens it again.
    func close() { connection.withLock { $0 = nil } }
}
