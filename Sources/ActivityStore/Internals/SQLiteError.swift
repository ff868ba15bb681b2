/// What SQLite said when it refused: its extended result code and its message.
public struct SQLiteError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The extended result code (`SQLITE_BUSY_SNAPSHOT`, `SQLITE_CORRUPT_VTAB`, …); its low byte is
    /// the primary code.
    public var code: Int32
    public var message: String

    public init(code: Int32, message: String) {
        self.code = code
        self.message = message
    }

    /// The primary result code (`SQLITE_BUSY`, `SQLITE_CORRUPT`, …).
    public var primaryCode: Int32 { code & 0xFF }

    /// The file is damaged: only "corrupt" and "not a database" say so. A busy or locked file, a
    /// full disk or a permission is no damage, and such a file must never be set aside.
    public var isDamage: Bool { primaryCode == 11 || primaryCode == 26 }  // SQLITE_CORRUPT, SQLITE_NOTADB

    /// Another connection (another process) holds the lock SQLite waited for, until its busy timeout.
    public var isBusy: Bool { primaryCode == 5 || primaryCode == 6 }  // SQLITE_BUSY, SQLITE_LOCKED

    public var description: String { "\(message) (SQLite result code \(code))" }
}
