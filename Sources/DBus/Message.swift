/// A D-Bus message: a method call, a reply, an error or a signal.
///
/// Messages are immutable once built and cheap to copy (they share one libdbus reference).
public struct Message: Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        case methodCall, methodReturn, error, signal
    }

    let reference: LibdbusReference

    init(reference: LibdbusReference) { self.reference = reference }

    /// A reader positioned on the first argument, for messages read piece by piece.
    public func reader() -> MessageReader { MessageReader(reading: reference) }

    /// Reads all the arguments at once, as exactly these types in this order.
    /// - Throws: `ArgumentError` when the arguments differ in type or number.
    // Inlinable, so that a caller's types are known where it is compiled: unspecialized, the tuple
    // of the pack is looked up in the runtime's metadata cache on every call.
    @inlinable
    public func decode<each Value: BusValue>(_ types: repeat (each Value).Type) throws -> (repeat each Value) {
        var reader = reader()
        let values = (repeat try reader.read((each Value).self))
        try reader.expectEnd()
        return values
    }

    /// The error this message carries, when it is an error reply: its name and first string argument.
    var carriedError: BusError? {
        guard kind == .error else { return nil }
        var reader = self.reader()
        let text = (try? reader.read(String.self)) ?? ""
        return BusError(errorName ?? .failed, text)
    }

    public var description: String {
        var parts = ["\(kind)"]
        if let sender { parts.append("from \(sender)") }
        if let destination { parts.append("to \(destination)") }
        if let path { parts.append("path \(path)") }
        if let interface { parts.append("interface \(interface)") }
        if let member { parts.append("member \(member)") }
        if let errorName { parts.append("error \(errorName)") }
        parts.append("signature '\(signature)'")
        return parts.joined(separator: " ")
    }
}
