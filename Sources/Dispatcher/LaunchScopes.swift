public import DBus
public import Desktop
public import Logging
import Synchronization

/// Puts each process the daemon launches into a systemd scope of its own, as desktop shells'
/// launchers do, when the session's user manager is on the bus.
///
/// Why: real sessions run the daemon as `waypost.service`, and a process it spawns stays in that
/// unit's control group. Stopping or restarting the unit, or the daemon crashing, would then stop
/// every app it launched, `systemctl --user status waypost` would list them, and the portal, which
/// names a host app by its unit, would not know them. A scope named after the app
/// (`app-waypost-<app id>-<pid>.scope` in `app.slice`, systemd's convention for desktops) makes the
/// app the user's, not the dispatcher's.
///
/// Policy: asked after the spawn, not awaited by the launch (the app starts meanwhile); a process
/// that exits or forks before the manager moves it keeps its children where they are, as with
/// every launcher that asks afterwards. Without a user manager on the bus (the call finds no
/// owner, and starts none), nothing is asked again for the life of the daemon.
public final class LaunchScopes: Sendable {
    private let connection: Connection
    private let logger: Logger
    /// Set once the bus said nobody owns the manager's name.
    private let managerAbsent = Atomic<Bool>(false)

    public static let manager: BusName = "org.freedesktop.systemd1"

    public init(connection: Connection, logger: Logger) {
        (self.connection, self.logger) = (connection, logger)
    }

    /// Asks the user manager for a scope for each of `pids`, spawned for the entry `appID`.
    public func place(_ pids: [Int32], of appID: String) {
        guard !pids.isEmpty, !managerAbsent.load(ordering: .relaxed) else { return }
        Task { for pid in pids { await place(pid, of: appID) } }
    }

    private func place(_ pid: Int32, of appID: String) async {
        let unit = Self.unitName(appID: appID, pid: pid)
        let properties: [Structure<String, Variant>] = [
            Structure(("Description", .string("\(appID) launched by Waypost"))),
            Structure(("PIDs", .array(element: "u", [.uint32(UInt32(bitPattern: pid))]))),
            Structure(("Slice", .string("app.slice"))),
            // A scope whose app failed is not kept for `systemctl --user reset-failed`.
            Structure(("CollectMode", .string("inactive-or-failed"))),
        ]
        do {
            _ = try await connection.call(
                destination: Self.manager, path: "/org/freedesktop/systemd1", interface: "org.freedesktop.systemd1.Manager",
                member: "StartTransientUnit", unit, "fail", properties, [Structure<String, [Structure<String, Variant>]>](),
                timeout: .seconds(10), autoStart: false)
            logger.debug("launched \(appID) (pid \(pid)) in \(unit)")
        } catch let error as BusError where error.name == .serviceUnknown || error.name == .nameHasNoOwner {
            managerAbsent.store(true, ordering: .relaxed)
            logger.debug("no systemd user manager on the bus: launched apps stay in the daemon's own group")
        } catch {
            logger.notice("\(appID) (pid \(pid)) stays in the daemon's unit: the user manager refused \(unit): \(error)")
        }
    }

    /// `app-waypost-<app id>-<pid>.scope`, the id escaped as `systemd-escape` does; an id too long
    /// for a unit name (256 bytes) gives `app-waypost-<pid>.scope`.
    public static func unitName(appID: String, pid: Int32) -> String {
        let name = "app-waypost-\(escaped(appID))-\(pid).scope"
        return name.utf8.count < 256 ? name : "app-waypost-\(pid).scope"
    }

    /// systemd's unit-name escaping: `/` becomes `-`; a byte outside `[A-Za-z0-9:_.]` (a leading `.`
    /// too) becomes `\xNN`, so that `-`, which unit names use as a separator, stays unambiguous.
    static func escaped(_ text: String) -> String {
        let hexDigits = Array("0123456789abcdef".unicodeScalars)
        var result = ""
        for (index, byte) in text.utf8.enumerated() {
            switch byte {
            case UInt8(ascii: "/"): result += "-"
            case UInt8(ascii: "."): result += index == 0 ? "\\x2e" : "."
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: ":"), UInt8(ascii: "_"):
                result.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                result += "\\x"
                result.unicodeScalars.append(hexDigits[Int(byte >> 4)])
                result.unicodeScalars.append(hexDigits[Int(byte & 0xf)])
            }
        }
        return result
    }
}

/// A launcher whose spawned processes go into scopes of their own (`LaunchScopes`).
public struct ScopedLauncher: ApplicationLauncher {
    let launcher: any ApplicationLauncher
    let scopes: LaunchScopes

    public init(_ launcher: any ApplicationLauncher, scopes: LaunchScopes) {
        (self.launcher, self.scopes) = (launcher, scopes)
    }

    public func launch(_ entry: ApplicationEntry, uris: [String], platformData: LaunchPlatformData) throws(LaunchError) -> [Int32] {
        let pids = try launcher.launch(entry, uris: uris, platformData: platformData)
        scopes.place(pids, of: entry.id)
        return pids
    }

    public func launch(
        _ entry: ApplicationEntry, adding added: [String], uris: [String], platformData: LaunchPlatformData
    ) throws(LaunchError) -> [Int32] {
        let pids = try launcher.launch(entry, adding: added, uris: uris, platformData: platformData)
        scopes.place(pids, of: entry.id)
        return pids
    }
}
