import DBus
import Desktop
import Handoff
import Logging
import WaypostContract

// The transports a handoff goes through: kdeconnectd (KDE) and GSConnect (GNOME) speak the same
// protocol to the devices and differ only on the session bus. Which ones run is decided in one place
// (`HandoffService.transports()`); everything else asks them through `HandoffTransport`.

/// What a device is reached through, as `ListDevices` and `waypost handoff devices` name it.
public enum HandoffTransportKind: String, Sendable, Hashable {
    case kdeconnectd
    case gsconnect
}

/// A paired device as its transport describes it.
struct PairedDevice: Sendable {
    /// As the transport names it (kdeconnectd shows a GSConnect device's "-" as "_").
    var id: String
    var name: String
    var type: String
    var transport: HandoffTransportKind
    /// Phones and tablets run no Waypost: they get the webpage URL (Android's App Links take it there).
    var takesWebpageOnly: Bool { type == "phone" || type == "tablet" }
    /// The id in its one spelling, for the trust file and for comparing (`DeviceID.canonical`).
    var canonicalID: String { DeviceID.canonical(id) }
}

/// Device ids in one spelling: GSConnect's ids hold "-", which kdeconnectd shows as "_" (an object path
/// element cannot hold "-"), and kdeconnectd's own ids are UUIDs with "_" for "-". So "_" is read as
/// "-": the same device is one id whichever transport names it.
enum DeviceID {
    static func canonical(_ id: String) -> String {
        String(id.map { $0 == "_" ? "-" : $0 })
    }

    /// `id` as a kdeconnectd object path element.
    static func kdeConnectPathElement(_ id: String) -> String {
        String(id.map { $0 == "-" ? "_" : $0 })
    }
}

/// One way to the paired devices: list them, share a URL with one.
protocol HandoffTransport: Sendable {
    var kind: HandoffTransportKind { get }
    /// The paired devices, reachable ones only when `reachable`.
    /// - Throws: `transportAbsent` when the transport stops answering.
    func devices(reachable: Bool) async throws(HandoffFailure) -> [PairedDevice]
    /// Shares `url` with `device` (one of this transport's); no acknowledgement comes back.
    /// - Throws: `deliveryFailed` naming the device and the bus's error.
    func share(_ url: String, to device: PairedDevice) async throws(DispatchError)
    /// The name this desktop announces to the devices, when the transport says.
    func announcedName() async -> String?
}

/// kdeconnectd 22.12, at the unique name checked to run kdeconnectd (`KDEConnectSenders.owner`).
struct KDEConnectTransport: HandoffTransport {
    static let daemonPath: ObjectPath = "/modules/kdeconnect"
    let connection: Connection
    let owner: BusName
    var kind: HandoffTransportKind { .kdeconnectd }

    func devices(reachable: Bool) async throws(HandoffFailure) -> [PairedDevice] {
        let ids: [String]
        do {
            ids = try await connection.call(
                destination: owner, path: Self.daemonPath, interface: "org.kde.kdeconnect.daemon", member: "devices",
                reachable, true, timeout: .seconds(10)
            ).decode([String].self)
        } catch {
            throw .transportAbsent(.kdeconnectd, "\(error)")
        }
        var devices: [PairedDevice] = []
        for id in ids {
            devices.append(PairedDevice(
                id: id, name: await property(id, "name") ?? id, type: await property(id, "type") ?? "unknown", transport: .kdeconnectd))
        }
        return devices
    }

    func property(_ id: String, _ property: String) async -> String? {
        guard let path = try? ObjectPath(Self.daemonPath.rawValue + "/devices/" + DeviceID.kdeConnectPathElement(id)),
            let value = try? await connection.call(
                destination: owner, path: path, interface: "org.freedesktop.DBus.Properties", member: "Get",
                "org.kde.kdeconnect.device", property, timeout: .seconds(5)
            ).decode(Variant.self),
            case .string(let text) = value
        else { return nil }
        return text
    }

    /// `shareUrl`. A re-announcement briefly removes the share object (`UnknownObject`), and KDE
    /// Connect signals nothing when it is back: asked again every 100 ms, for two seconds at most.
    func share(_ url: String, to device: PairedDevice) async throws(DispatchError) {
        guard let path = try? ObjectPath(Self.daemonPath.rawValue + "/devices/" + DeviceID.kdeConnectPathElement(device.id) + "/share") else {
            throw .invalidArgument(OutsideText.shown(device.id, limit: 64), reason: "not a KDE Connect device id")
        }
        for attempt in 0..<20 {
            do {
                _ = try await connection.call(
                    destination: owner, path: path, interface: "org.kde.kdeconnect.device.share", member: "shareUrl", url,
                    timeout: .seconds(10))
                return
            } catch let error as BusError where error.name.rawValue == "org.freedesktop.DBus.Error.UnknownObject" && attempt < 19 {
                try? await Task.sleep(for: .milliseconds(100))
            } catch {
                throw .deliveryFailed(OutsideText.shown(device.name, limit: 64), attempts: ["kdeconnectd's shareUrl: \(error)"])
            }
        }
    }

    func announcedName() async -> String? {
        try? await connection.call(
            destination: owner, path: Self.daemonPath, interface: "org.kde.kdeconnect.daemon", member: "announcedName",
            timeout: .seconds(5)
        ).decode(String.self)
    }
}

/// GSConnect 54 (GNOME Shell's extension; its service runs under gjs): an object manager whose device
/// objects carry `Connected`, `Paired`, `Id`, `Name`, `Type`, and export their actions (`org.gtk.Actions`)
/// on the same path; `shareUri` sends a URL as kdeconnectd's `shareUrl` does.
struct GSConnectTransport: HandoffTransport {
    static let name: BusName = "org.gnome.Shell.Extensions.GSConnect"
    static let managerPath: ObjectPath = "/org/gnome/Shell/Extensions/GSConnect"
    static let deviceInterface = "org.gnome.Shell.Extensions.GSConnect.Device"
    /// GSConnect's service is a gjs script: its owner is checked to run gjs, which keeps out any other
    /// program, though not another gjs script (docs/known-issues.md).
    static let trusted = Contract.TrustedDispatcher.interpreter("/usr/bin/gjs", of: "GSConnect's service")
    let connection: Connection
    let owner: BusName
    var kind: HandoffTransportKind { .gsconnect }

    func devices(reachable: Bool) async throws(HandoffFailure) -> [PairedDevice] {
        let objects: [ObjectPath: [String: [String: Variant]]]
        do {
            objects = try await connection.call(
                destination: owner, path: Self.managerPath, interface: "org.freedesktop.DBus.ObjectManager", member: "GetManagedObjects",
                timeout: .seconds(10)
            ).decode([ObjectPath: [String: [String: Variant]]].self)
        } catch {
            throw .transportAbsent(.gsconnect, "\(error)")
        }
        var devices: [PairedDevice] = []
        for (path, interfaces) in objects.sorted(by: { $0.key < $1.key }) {
            guard let properties = interfaces[Self.deviceInterface], Self.flag(properties["Paired"]),
                !reachable || Self.flag(properties["Connected"]),
                // The object's path is made from the id; the id is what the other side knows.
                let id = Self.text(properties["Id"]) ?? path.rawValue.split(separator: "/").last.map(String.init)
            else { continue }
            devices.append(PairedDevice(
                id: id, name: Self.text(properties["Name"]) ?? id, type: Self.text(properties["Type"]) ?? "unknown", transport: .gsconnect))
        }
        return devices
    }

    private static func flag(_ value: Variant?) -> Bool { if case .boolean(true)? = value { true } else { false } }
    private static func text(_ value: Variant?) -> String? { if case .string(let text)? = value, !text.isEmpty { text } else { nil } }

    /// GSConnect's device path: its id with each run of non-word characters as "_" (manager.js).
    static func path(of id: String) -> ObjectPath? {
        var element = ""
        var inRun = false
        for scalar in id.unicodeScalars {
            let word = scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "_")
            if word { element.unicodeScalars.append(scalar) } else if !inRun { element += "_" }
            inRun = !word
        }
        return try? ObjectPath(managerPath.rawValue + "/Device/" + element)
    }

    /// The owner of GSConnect's name once checked to run gjs; nil when nobody owns it.
    /// - Throws: `gsconnectUntrusted` for an owner running another program; `transportAbsent` when
    ///   the bus cannot say.
    static func owner(on connection: Connection) async throws(HandoffFailure) -> BusName? {
        let owner: BusName?
        do { owner = try await connection.nameOwner(of: name) } catch { throw .transportAbsent(.gsconnect, "\(error)") }
        guard let owner else { return nil }
        switch await trusted.check(owner: owner, on: connection) {
        case .trusted: return owner
        case .untrusted(let owner, let pid, let program):
            throw .gsconnectUntrusted(owner: owner.rawValue, pid: pid, program: program, expected: trusted.programs.map(\.path))
        case .unknown(_, let reason): throw .transportAbsent(.gsconnect, reason)
        }
    }

    /// `org.gtk.Actions.Activate("shareUri", [<url>], {})` on the device's object.
    func share(_ url: String, to device: PairedDevice) async throws(DispatchError) {
        guard let path = Self.path(of: device.id) else {
            throw .invalidArgument(OutsideText.shown(device.id, limit: 64), reason: "not a GSConnect device id")
        }
        do {
            _ = try await connection.call(
                destination: owner, path: path, interface: "org.gtk.Actions", member: "Activate",
                "shareUri", [Variant.string(url)], [String: Variant](), timeout: .seconds(10))
        } catch {
            throw .deliveryFailed(OutsideText.shown(device.name, limit: 64), attempts: ["GSConnect's shareUri: \(error)"])
        }
    }

    /// GSConnect keeps its name in GSettings, not on the bus; its default is the host name (read
    /// from the kernel, as `gethostname`, and so GLib's `g_get_host_name`, gives it).
    func announcedName() async -> String? {
        guard let bytes = (try? Files.read("/proc/sys/kernel/hostname")) ?? nil else { return nil }
        let name = String(decoding: bytes.prefix { $0 != 0x0A && $0 != 0 }, as: UTF8.self)
        return name.isEmpty ? nil : name
    }
}

extension HandoffService {
    /// The transports that run now, kdeconnectd first (its owner checked: sent only to kdeconnectd
    /// itself), then GSConnect (its owner checked to run gjs). A name owned by another program is an
    /// error even when the other transport runs: something poses as one, and the user should hear of it.
    /// - Throws: `kdeConnectUntrusted`, `gsconnectUntrusted`; `noTransport` when neither runs.
    func transports() async throws(HandoffFailure) -> [any HandoffTransport] {
        var found: [any HandoffTransport] = []
        var absent: [String] = []
        do {
            found.append(KDEConnectTransport(connection: connection, owner: try await senders.owner(on: connection, logger: logger)))
        } catch {
            guard case .transportAbsent(_, let why) = error else { throw error }
            absent.append(why)
        }
        do {
            if let owner = try await GSConnectTransport.owner(on: connection) {
                found.append(GSConnectTransport(connection: connection, owner: owner))
            } else {
                absent.append("\(GSConnectTransport.name) has no owner")
            }
        } catch {
            guard case .transportAbsent(_, let why) = error else { throw error }
            absent.append(why)
        }
        if found.isEmpty { throw .noTransport(absent) }
        return found
    }

    /// The paired devices (reachable ones only when `reachable`) of every running transport; a device
    /// two transports know (the same id, "_" read as "-") once, on the first (kdeconnectd). A transport
    /// that stops answering midway is left out, unless it was the only one.
    static func devices(reachable: Bool, of transports: [any HandoffTransport]) async throws(HandoffFailure) -> [PairedDevice] {
        var devices: [PairedDevice] = []
        var seen: Set<String> = []
        var failures: [String] = []
        for transport in transports {
            do {
                for device in try await transport.devices(reachable: reachable) where seen.insert(device.canonicalID).inserted {
                    devices.append(device)
                }
            } catch {
                failures.append(error.description)
            }
        }
        if failures.count == transports.count, !failures.isEmpty { throw .noTransport(failures) }
        return devices
    }
}
