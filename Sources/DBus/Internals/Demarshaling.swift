internal import CDBus

// The seam the message reader's fuzzer (Fuzz/) feeds raw bytes through: libdbus validates them as
// it does everything read from a socket, then the reader walks what it accepted.
extension Message {
    /// A message from its wire bytes; nil when libdbus refuses them. `dbus_message_demarshal`.
    static func demarshaled(_ bytes: [UInt8]) -> Message? {
        var error = DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        let message = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { dbus_message_demarshal($0.baseAddress, Int32($0.count), &error) }
        }
        return message.map { Message(reference: .message(adopting: $0)) }
    }

    /// Every argument, read whatever its type, as a reader of any message does.
    func readAll() throws -> [Variant] {
        var reader = self.reader()
        var values: [Variant] = []
        while !reader.isAtEnd { values.append(try Variant.readContent(from: &reader)) }
        return values
    }
}
