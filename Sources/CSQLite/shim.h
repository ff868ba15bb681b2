// The system's SQLite (libsqlite3-dev), and what Swift cannot import of it: SQLITE_TRANSIENT is a
// macro casting -1 to a destructor, so the binds that copy their bytes are spelled here.
#include <sqlite3.h>

/// sqlite3_bind_text with SQLITE_TRANSIENT: SQLite copies the bytes before it returns.
static inline int waypost_sqlite3_bind_text(sqlite3_stmt *statement, int index, const char *bytes, int count) {
    return sqlite3_bind_text(statement, index, bytes, count, SQLITE_TRANSIENT);
}

/// sqlite3_bind_blob with SQLITE_TRANSIENT: SQLite copies the bytes before it returns.
static inline int waypost_sqlite3_bind_blob(sqlite3_stmt *statement, int index, const void *bytes, int count) {
    return sqlite3_bind_blob(statement, index, bytes, count, SQLITE_TRANSIENT);
}
