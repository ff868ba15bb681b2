// The message reader's fuzzer (Fuzz/) feeds raw bytes through `Message.demarshal`, which libdbus
// validates as it does everything read from a socket; then the reader walks what it accepted.
extension Message {
    /// Every argument, read whatever its type, as a reader of any message does.
    func readAll() throws -> [Variant] {
        var reader = self.reader()
        var values: [Variant] = []
        while !reader.isAtEnd { values.append(try Variant.readContent(from: &reader)) }
        return values
    }
}
