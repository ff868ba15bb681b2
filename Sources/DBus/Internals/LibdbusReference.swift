internal import CDBus

/// An owned reference to a libdbus object (a message or a connection), released in `deinit`.
///
/// Invariant that makes `@unchecked Sendable` sound: libdbus reference counts are atomic, a
/// `DBusConnection` locks itself (threads are initialised before the first connection), and a
/// `DBusMessage` is only mutated by the code that created it, before it is shared or sent. This is
/// the module's only `@unchecked Sendable`.
final class LibdbusReference: @unchecked Sendable {
    let pointer: OpaquePointer
    private let release: (OpaquePointer) -> Void

    /// Adopts a reference the caller already owns (libdbus "new"/"ref" results).
    init(adopting pointer: OpaquePointer, release: @escaping (OpaquePointer) -> Void) {
        self.pointer = pointer
        self.release = release
    }

    deinit { release(pointer) }

    /// Adopts a new `DBusMessage` reference; `dbus_message_unref` on release.
    static func message(adopting pointer: OpaquePointer) -> LibdbusReference {
        LibdbusReference(adopting: pointer, release: { dbus_message_unref($0) })
    }

    /// Takes an extra reference on a message libdbus lends us (`dbus_message_ref`).
    static func message(borrowing pointer: OpaquePointer) -> LibdbusReference {
        dbus_message_ref(pointer)
        return message(adopting: pointer)
    }

    /// Adopts a private `DBusConnection`; closes it (required for private connections) and unrefs.
    static func privateConnection(adopting pointer: OpaquePointer) -> LibdbusReference {
        LibdbusReference(adopting: pointer, release: { connection in
            dbus_connection_close(connection)
            dbus_connection_unref(connection)
        })
    }
}

/// Runs `body` with an initialised scratch `DBusError` and frees it afterwards.
/// Returns the body's result and, when libdbus set the error, its name and message.
func withScratchError<Result>(
    _ body: (UnsafeMutablePointer<CDBus.DBusError>) -> Result
) -> (Result, (name: String, message: String)?) {
    var error = CDBus.DBusError()
    dbus_error_init(&error)
    defer { dbus_error_free(&error) }
    let result = body(&error)
    guard dbus_error_is_set(&error) != 0 else { return (result, nil) }
    let name = error.name.map { String(cString: $0) } ?? ErrorName.failed.rawValue
    let message = error.message.map { String(cString: $0) } ?? ""
    return (result, (name, message))
}

/// Calls `body` with a NUL-terminated copy of `string`, or returns nil when the string contains NUL
/// (libdbus would silently see only the part before it).
func withValidatedCString<Result>(_ string: String, _ body: (UnsafePointer<CChar>) -> Result) -> Result? {
    if string.utf8.contains(0) { return nil }
    return string.withCString(body)
}
