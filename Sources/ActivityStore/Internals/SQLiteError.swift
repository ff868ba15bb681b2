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
    public var isDamage: Bool { (primaryCode == 11 || primaryCode == 26) && !isForeign }  // SQLITE_CORRUPT, SQLITE_NOTADB

    /// What is at the store's path is no file of the store's: another program's database, a file of
    /// another layout, a symbolic link, a FIFO. Set aside untouched, as a damaged one is.
    public var isForeign: Bool { code == Self.foreignCode || code == 1550 }  // ours; SQLITE_CANTOPEN_SYMLINK

    /// The store's own code for `notTheStore`: "not a database" with an extended part SQLite never uses.
    static let foreignCode: Int32 = 26 | (0xF0 << 8)

    /// What is at the path is not the store's (`isForeign`), and why.
    static func notTheStore(_ reason: String) -> SQLiteError { SQLiteError(code: foreignCode, message: reason) }

    /// Another connection (another process) holds the lock SQLite waited for, until its busy timeout.
    public var isBusy: Bool { primaryCode == 5 || primaryCode == 6 }  // SQLITE_BUSY, SQLITE_LOCKED

    public var description: String { "\(message) (SQLite result code \(code))" }
}
