// One SQLite connection and its prepared statements: the only place the store holds SQLite's pointers.
internal import CSQLite
import FoundationEssentials

/// An open database connection. Not thread-safe by design: each one belongs to a single serial
/// queue (`SerialConnection`), so SQLite is opened without its own mutexes (`SQLITE_OPEN_NOMUTEX`).
final class Connection {
    private let handle: OpaquePointer
    /// Statements prepared once and reused: the store runs a handful of SQL texts over and over.
    private var cached: [String: Statement] = [:]
    /// What statements have read so far (rows stepped to, blobs taken): what a read costs is told by
    /// the difference, and the store's bounds are checked against it.
    var reads = ReadCounts()

    /// Opens (or creates) the file, with extended result codes and a busy timeout. Never through a
    /// symbolic link (`SQLITE_OPEN_NOFOLLOW`, its WAL file included): SQLite then fails with
    /// `SQLITE_CANTOPEN_SYMLINK`, which it also gives for a link among the path's directories.
    /// - Parameters:
    ///   - create: false for a reader, which must never make a file where the writer set one aside.
    ///   - busyTimeout: how long a statement waits for another connection's lock before `SQLITE_BUSY`.
    /// - Throws: what `sqlite3_open_v2` reported.
    init(path: String, create: Bool, busyTimeout: Duration) throws(SQLiteError) {
        var opened: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0) | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_NOFOLLOW
        let status = sqlite3_open_v2(path, &opened, flags, nil)
        guard status == SQLITE_OK, let opened else {
            let message = opened.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(status))
            sqlite3_close_v2(opened)
            throw SQLiteError(code: status, message: message)
        }
        handle = opened
        sqlite3_extended_result_codes(handle, 1)
        sqlite3_busy_timeout(handle, Int32(min(busyTimeout / .milliseconds(1), Double(Int32.max))))
    }

    /// Finalizes the statements, then `sqlite3_close_v2`, which waits for nothing.
    deinit {
        cached.removeAll()
        sqlite3_close_v2(handle)
    }

    /// Runs SQL text of one or more statements without results (schema, pragmas). `sqlite3_exec`.
    func execute(_ sql: String) throws(SQLiteError) {
        var message: UnsafeMutablePointer<CChar>?
        let status = sqlite3_exec(handle, sql, nil, nil, &message)
        defer { sqlite3_free(message) }
        guard status == SQLITE_OK else {
            throw SQLiteError(code: sqlite3_extended_errcode(handle), message: message.map { String(cString: $0) } ?? lastMessage)
        }
    }

    /// The statement for `sql`, prepared on first use and kept, reset and with no values bound.
    /// `sqlite3_prepare_v3` with `SQLITE_PREPARE_PERSISTENT`.
    func statement(_ sql: String) throws(SQLiteError) -> Statement {
        if let statement = cached[sql] {
            statement.reset()
            return statement
        }
        let statement = try prepare(sql, persistent: true)
        cached[sql] = statement
        return statement
    }

    /// A statement used once (its SQL text varies: a list of placeholders). `sqlite3_prepare_v3`.
    func prepare(_ sql: String, persistent: Bool = false) throws(SQLiteError) -> Statement {
        var prepared: OpaquePointer?
        let status = sqlite3_prepare_v3(handle, sql, -1, persistent ? UInt32(SQLITE_PREPARE_PERSISTENT) : 0, &prepared, nil)
        guard status == SQLITE_OK, let prepared else { throw error(status) }
        return Statement(prepared, connection: self)
    }

    /// Runs `body` in a transaction that takes the write lock at once (`BEGIN IMMEDIATE`), so that a
    /// busy file fails before any work; commits what it did, or rolls it all back when it throws.
    func transaction<Value>(_ body: () throws(SQLiteError) -> Value) throws(SQLiteError) -> Value {
        try execute("BEGIN IMMEDIATE")
        do {
            let value = try body()
            try execute("COMMIT")
            return value
        } catch {
            // A failed COMMIT, or a statement, may have ended the transaction already.
            if sqlite3_get_autocommit(handle) == 0 { try? execute("ROLLBACK") }
            throw error
        }
    }

    /// Rows the last statement inserted, updated or deleted. `sqlite3_changes64`.
    var changes: Int { Int(sqlite3_changes64(handle)) }

    /// The rowid of the last insert. `sqlite3_last_insert_rowid`.
    var lastInsertedRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    fileprivate var lastMessage: String { String(cString: sqlite3_errmsg(handle)) }

    fileprivate func error(_ status: Int32) -> SQLiteError {
        let code = sqlite3_extended_errcode(handle)
        return SQLiteError(code: code == SQLITE_OK ? status : code, message: lastMessage)
    }
}

/// A prepared statement: values bound by position from 1, rows stepped through.
final class Statement {
    fileprivate let handle: OpaquePointer
    /// Unowned: the connection keeps its cached statements, and a statement used once lives inside a
    /// call on the connection; a strong reference both ways would keep the file open for ever.
    fileprivate unowned let connection: Connection

    fileprivate init(_ handle: OpaquePointer, connection: Connection) {
        self.handle = handle
        self.connection = connection
    }

    deinit { sqlite3_finalize(handle) }

    /// `sqlite3_reset` and `sqlite3_clear_bindings`: ready to bind and run again.
    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// Binds the values to the placeholders in order, from the first.
    func bind<each Value: SQLiteValue>(_ values: repeat each Value) throws(SQLiteError) -> Statement {
        var index: Int32 = 1
        for value in repeat each values {
            try check(value.bind(to: self, at: index))
            index += 1
        }
        return self
    }

    /// Binds the texts to the placeholders from `index` on (a list of placeholders of any length).
    func bind(_ texts: [String], from index: Int32) throws(SQLiteError) -> Statement {
        for (offset, text) in texts.enumerated() { try check(text.bind(to: self, at: index + Int32(offset))) }
        return self
    }

    /// Runs it to the end, for its effect. `sqlite3_step`.
    func run() throws(SQLiteError) {
        while try step() {}
    }

    /// Each row, read by `read`.
    func rows<Value>(_ read: (Row) -> Value) throws(SQLiteError) -> [Value] {
        var values: [Value] = []
        while try step() { values.append(read(Row(statement: self))) }
        return values
    }

    /// Steps to each row in turn while `body` returns true: the rows after it are never read.
    func forEachRow(_ body: (Row) -> Bool) throws(SQLiteError) {
        defer { sqlite3_reset(handle) }
        while try step() { guard body(Row(statement: self)) else { return } }
    }

    /// The first row's first column, nil without a row.
    func value<Value: SQLiteValue>(_ type: Value.Type = Value.self) throws(SQLiteError) -> Value? {
        defer { sqlite3_reset(handle) }
        guard try step() else { return nil }
        return Value.read(from: self, column: 0)
    }

    /// One step: true while it has a row. `sqlite3_step`.
    private func step() throws(SQLiteError) -> Bool {
        switch sqlite3_step(handle) {
        case SQLITE_ROW:
            connection.reads.rows += 1
            return true
        case SQLITE_DONE: return false
        case let status: throw connection.error(status)
        }
    }

    private func check(_ status: Int32) throws(SQLiteError) {
        guard status == SQLITE_OK else { throw connection.error(status) }
    }

    fileprivate func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }
}

/// The current row of a statement being stepped through; valid only until the next step.
struct Row {
    fileprivate let statement: Statement

    subscript<Value: SQLiteValue>(_ column: Int32) -> Value { Value.read(from: statement, column: column) }
}

/// A Swift type SQLite stores as one of its own: bound to a placeholder, read from a column.
protocol SQLiteValue {
    /// `sqlite3_bind_*`; returns its result code.
    func bind(to statement: Statement, at index: Int32) -> Int32
    /// `sqlite3_column_*`. A NULL reads as the type's empty value, except for `Optional`.
    static func read(from statement: Statement, column: Int32) -> Self
}

extension Int64: SQLiteValue {
    func bind(to statement: Statement, at index: Int32) -> Int32 { sqlite3_bind_int64(statement.handle, index, self) }
    static func read(from statement: Statement, column: Int32) -> Int64 { sqlite3_column_int64(statement.handle, column) }
}

extension Int: SQLiteValue {
    func bind(to statement: Statement, at index: Int32) -> Int32 { sqlite3_bind_int64(statement.handle, index, Int64(self)) }
    static func read(from statement: Statement, column: Int32) -> Int { Int(sqlite3_column_int64(statement.handle, column)) }
}

extension String: SQLiteValue {
    /// Bound by its UTF-8 bytes and their count, so that a NUL inside is kept; SQLite copies them.
    func bind(to statement: Statement, at index: Int32) -> Int32 {
        var text = self
        return text.withUTF8 { bytes in
            // An empty buffer may have no address, which SQLite would take as NULL.
            guard let base = bytes.baseAddress, !bytes.isEmpty else { return waypost_sqlite3_bind_text(statement.handle, index, "", 0) }
            return base.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                waypost_sqlite3_bind_text(statement.handle, index, $0, Int32(bytes.count))
            }
        }
    }

    static func read(from statement: Statement, column: Int32) -> String {
        guard let text = sqlite3_column_text(statement.handle, column) else { return "" }
        let count = Int(sqlite3_column_bytes(statement.handle, column))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }
}

extension Data: SQLiteValue {
    /// An empty one is bound as a zero-length blob, never as NULL; SQLite copies the bytes.
    func bind(to statement: Statement, at index: Int32) -> Int32 {
        withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress, !bytes.isEmpty else { return sqlite3_bind_zeroblob(statement.handle, index, 0) }
            return waypost_sqlite3_bind_blob(statement.handle, index, base, Int32(bytes.count))
        }
    }

    static func read(from statement: Statement, column: Int32) -> Data {
        let count = Int(sqlite3_column_bytes(statement.handle, column))
        statement.connection.reads.blobs += 1
        statement.connection.reads.blobBytes += count
        guard count > 0, let bytes = sqlite3_column_blob(statement.handle, column) else { return Data() }
        return Data(bytes: bytes, count: count)
    }
}

extension Optional: SQLiteValue where Wrapped: SQLiteValue {
    func bind(to statement: Statement, at index: Int32) -> Int32 {
        switch self {
        case .some(let value): value.bind(to: statement, at: index)
        case .none: sqlite3_bind_null(statement.handle, index)
        }
    }

    static func read(from statement: Statement, column: Int32) -> Wrapped? {
        statement.isNull(column) ? nil : Wrapped.read(from: statement, column: column)
    }
}
