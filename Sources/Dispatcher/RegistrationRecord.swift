import Dispatch
public import Desktop
import Synchronization

/// Which connections are registered as which app, kept in a file of the session's runtime directory
/// (`$XDG_RUNTIME_DIR/waypost/registered`) so that a daemon started after this one (a crash, its
/// unit restarted) knows which running apps are registering again.
///
/// Why: apps register again as soon as the new daemon owns the name, but the link that started it
/// arrives first; decided at once, it found no process of the app and launched a second one, or
/// found the process before its scenes and opened a new scene instead of the one preferring the link.
///
/// Policy: written off the connection's thread after every registration and departure, replaced
/// atomically; read once at start. Its first line names the bus (`Connection.serverID`): a record of
/// another bus is not read. Unique names are never reused on a bus, so a line of a connection gone
/// names nobody. Read bounded: at most `limit` bytes and `lineLimit` lines.
public final class RegistrationRecord: Sendable {
    public let path: String
    static let limit = 65_536
    static let lineLimit = 1024
    private static let writes = DispatchQueue(label: "waypost.registration-record")
    /// The text not written yet: however fast registrations come and go, one write is queued at most.
    private let pending = Mutex<String?>(nil)

    /// The record below `runtimeDirectory` (`$XDG_RUNTIME_DIR`).
    public init(runtimeDirectory: String) { path = runtimeDirectory + "/waypost/registered" }

    /// Replaces the record with `registrations` (unique name, app id) on the bus `busID`, soon, off
    /// the caller's thread; of several asked before a write, the last.
    func write(busID: String, _ registrations: [(owner: String, appID: String)]) {
        let text = "bus\t\(busID)\n" + registrations.map { "\($0.owner)\t\($0.appID)\n" }.joined()
        let queued = pending.withLock { pending in
            defer { pending = text }
            return pending != nil
        }
        guard !queued else { return }
        Self.writes.async { [self] in
            guard let text = pending.withLock({ pending in defer { pending = nil }; return pending }) else { return }
            try? Files.write(Array(text.utf8), to: path, mode: 0o600)
        }
    }

    /// What the record holds for the bus `busID`; nothing when it is missing, unreadable, too long,
    /// or written on another bus (an earlier one at the same address: its names mean nothing here).
    public func read(busID: String) -> [(owner: String, appID: String)] {
        guard let bytes = try? Files.read(path, limit: Self.limit) else { return [] }
        return Self.parse(String(decoding: bytes, as: UTF8.self), busID: busID)
    }

    /// The lines after the bus's own that name a unique bus name and an app id (checked as
    /// registration checks them), of the first `lineLimit`; any other line is skipped. Nothing when
    /// the first line names another bus.
    static func parse(_ text: String, busID: String) -> [(owner: String, appID: String)] {
        guard text.hasPrefix("bus\t\(busID)\n") else { return [] }
        return text.split(separator: "\n", omittingEmptySubsequences: true).dropFirst().prefix(lineLimit).compactMap { line in
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard fields.count == 2, fields[0].hasPrefix(":"), fields[0].utf8.count <= 255,
                fields[0].dropFirst().utf8.allSatisfy({ $0 == UInt8(ascii: ".") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
                (try? Registry.check(id: String(fields[1]), what: "app id")) != nil
            else { return nil }
            return (String(fields[0]), String(fields[1]))
        }
    }
}
