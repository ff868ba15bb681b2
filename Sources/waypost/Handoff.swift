import ArgumentParser
import DBus
import Desktop
import ExternalEvents
import Glibc
import Handoff
import WaypostContract

/// `waypost handoff …`: continue an activity on another device, over KDE Connect.
struct HandoffCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "handoff",
        abstract: "Hand the current activity to another device over KDE Connect, and take offers from them.",
        discussion: """
            A device running Waypost receives a waypost-handoff: URL and OFFERS the activity: nothing \
            continues until the user accepts (waypost handoff accept ID, its notification, a desktop \
            search for its words) or trusts that device (waypost handoff trust). An offer is a device's \
            only when kdeconnectd itself said so; any other says it is unverified, and always waits. \
            Offers last 5 minutes; at most 32 are kept (a new one replaces the oldest unverified one), \
            and at most 8 unverified ones of one caller. A device without Waypost (a phone) receives \
            the activity's webpage URL. See docs/handoff.md.
            """,
        subcommands: [Devices.self, Send.self, List.self, Accept.self, Trust.self])
}

/// KDE Connect's daemon on the session bus (kdeconnectd 22.12's names).
enum KDEConnect {
    static let name: BusName = "org.kde.kdeconnect"
    static let daemonPath: ObjectPath = "/modules/kdeconnect"

    struct Device {
        var id: String
        var name: String
        var type: String
        /// Phones and tablets run no Waypost: they get the webpage URL (Android's App Links take it there).
        var takesWebpageOnly: Bool { type == "phone" || type == "tablet" }
    }

    /// The paired devices, reachable ones only when `reachable`, asked of kdeconnectd: the owner of its
    /// name must run the program a service file for it starts (another process could name any device).
    static func devices(_ connection: Connection, reachable: Bool) async throws -> [Device] {
        let owner: BusName
        let ids: [String]
        do {
            guard let found = try await connection.nameOwner(of: name) else { throw BusError(.nameHasNoOwner, "\(name) has no owner") }
            owner = found
            ids = try await connection.call(
                destination: owner, path: daemonPath, interface: "org.kde.kdeconnect.daemon", member: "devices", reachable, true,
                timeout: .seconds(10)
            ).decode([String].self)
        } catch {
            printError("waypost: KDE Connect does not answer on the session bus (is kdeconnectd running?): \(BusClient.message(error))")
            throw ExitCode(69)
        }
        let trusted = Contract.TrustedDispatcher.installed(service: name)
        if case .untrusted(_, let pid, let program) = await trusted.check(owner: owner, on: connection) {
            printError("waypost: \(name) is owned by pid \(pid) running \(OutsideText.shown(program, limit: 200)), not kdeconnectd (\(trusted.programs.map(\.path).joined(separator: ", ")))")
            throw ExitCode(1)
        }
        var devices: [Device] = []
        for id in ids {
            devices.append(Device(
                id: id, name: await property(connection, owner, id, "name") ?? id, type: await property(connection, owner, id, "type") ?? "unknown"))
        }
        return devices
    }

    static func property(_ connection: Connection, _ owner: BusName, _ id: String, _ property: String) async -> String? {
        guard let path = try? ObjectPath(daemonPath.rawValue + "/devices/" + id),
            let value = try? await connection.call(
                destination: owner, path: path, interface: "org.freedesktop.DBus.Properties", member: "Get",
                "org.kde.kdeconnect.device", property, timeout: .seconds(5)
            ).decode(Variant.self),
            case .string(let text) = value
        else { return nil }
        return text
    }

    /// The device `given` names (id or name), or the only reachable one.
    static func device(_ given: String?, among devices: [Device]) throws -> Device {
        if let given {
            if let device = devices.first(where: { $0.id == given || $0.name == given }) { return device }
            printError("waypost: no paired, reachable device \(OutsideText.shown(given, limit: 64)): \(list(devices))")
            throw ExitCode(1)
        }
        guard devices.count == 1, let only = devices.first else {
            printError(devices.isEmpty
                ? "waypost: no paired device is reachable through KDE Connect"
                : "waypost: several devices are reachable; choose one with --device: \(list(devices))")
            throw ExitCode(1)
        }
        return only
    }

    static func list(_ devices: [Device]) -> String {
        devices.isEmpty ? "none is reachable" : devices.map { "\(OutsideText.shown($0.name, limit: 64)) (\($0.id))" }.joined(separator: ", ")
    }
}

extension HandoffCommand {
    struct Devices: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the paired, reachable devices, and whether each runs Waypost as far as known.")

        func run() async throws {
            let connection = try await BusClient.connect()
            // Devices that handed something over here run Waypost (the daemon notes them).
            let known = (try? XDGDirectories()).flatMap { xdg in
                try? Files.read(xdg.configHome + "/waypost/handoff-devices-with-waypost")
            }.map { String(decoding: $0, as: UTF8.self).split(separator: "\n").map(String.init) } ?? []
            for device in try await KDEConnect.devices(connection, reachable: true) {
                let waypost = device.takesWebpageOnly ? "no: gets webpage URLs"
                    : known.contains(device.id) ? "yes: handed over here before" : "unknown: gets Waypost handoffs"
                print("\(device.id)\t\(OutsideText.shown(device.name, limit: 64))\t\(OutsideText.shown(device.type, limit: 16))\t\(waypost)")
            }
        }
    }

    struct Send: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Send the current activity (of the most recently active eligible scene) to a device.",
            discussion: """
                To a phone or tablet, only the activity's webpage URL goes. Over KDE Connect a share has \
                no acknowledgement: the device is checked reachable first (a paired one that is not is \
                named so), and that is all that can be known. Sent only to kdeconnectd itself.
                """)

        @Option(help: "The device's KDE Connect id or name (default: the only reachable one).")
        var device: String?

        @Option(help: "The current activity of this app's most recently active scene instead.")
        var app: String?

        @Flag(help: "Send only the webpage URL, as to a device without Waypost.")
        var webpageOnly = false

        func run() async throws {
            let connection = try await BusClient.connect()
            let reply = try await HandoffCommand.call(
                connection, Contract.Handoff1.send, device ?? "", app ?? "", webpageOnly, failing: "cannot hand the activity over")
            let (name, url) = try reply.decode(String.self, String.self)
            let what = url.hasPrefix(HandoffPayload.scheme) ? "the activity" : "its webpage URL \(OutsideText.shown(url, limit: 200))"
            print("sent \(what) to \(OutsideText.shown(name, limit: 64))")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the offers other devices made here: id, \"From DEVICE: continue ‘TITLE’\", type, expiry.")

        func run() async throws {
            let connection = try await BusClient.connect()
            let reply = try await HandoffCommand.call(connection, Contract.Handoff1.listOffers, failing: "cannot list offers")
            let list = try reply.decode([[String: Variant]].self)
            let offers = try BusClient.decode("offers") { () throws(Contract.KeyError) in
                var offers: [Contract.HandoffOffer] = []
                for fields in list { offers.append(try Contract.HandoffOffer(fields)) }
                return offers
            }
            let now = Int64(time(nil))
            for offer in offers {
                // Words of other devices: shown on one line each (the daemon's summary is so already).
                let (summary, type) = (OutsideText.shown(offer.summary, limit: 256), OutsideText.shown(offer.activityType, limit: 120))
                print("\(offer.id)\t\(summary)\t\(type)\texpires in \(max(0, offer.expires - now)) s")
            }
        }
    }

    struct Accept: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Continue an offer here, as its activity's rules say.",
            discussion: "An offer is taken once; one that is gone is named as what became of it: expired, accepted, or replaced by newer offers.")

        @ArgumentParser.Argument(help: "The offer's id (waypost handoff list).")
        var id: String

        func run() async throws {
            let connection = try await BusClient.connect()
            let reply = try await HandoffCommand.call(
                connection, Contract.Handoff1.accept, id, Continue.platformData, timeout: BusClient.routingTimeout,
                failing: "cannot continue offer \(id)")
            print(BusClient.outcome(try reply.decode([String: Variant].self)).line(for: "offer \(id)"))
        }
    }

    struct Trust: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Let a paired device's handoffs continue without asking (--revoke: ask again).",
            discussion: "Only offers KDE Connect delivered from that device; a local one always asks.")

        @ArgumentParser.Argument(help: "The device's KDE Connect id or name.")
        var device: String

        @Flag(help: "Ask again for this device's handoffs.")
        var revoke = false

        func run() async throws {
            let connection = try await BusClient.connect()
            let target = try KDEConnect.device(device, among: try await KDEConnect.devices(connection, reachable: false))
            _ = try await HandoffCommand.call(
                connection, Contract.Handoff1.trustDevice, target.id, !revoke, failing: "cannot change trust in \(target.name)")
            print(revoke ? "\(target.name)'s handoffs will be offered" : "\(target.name)'s handoffs continue without asking")
        }
    }

    /// Calls one of `io.waypost.Handoff1`'s methods on the checked dispatcher.
    static func call<each Argument: BusValue>(
        _ connection: Connection, _ member: Contract.Member, _ arguments: repeat each Argument,
        timeout: Duration = .seconds(25), failing what: String
    ) async throws -> Message {
        let owner = try await BusClient.dispatcher(connection, failing: what)
        do {
            return try await connection.call(
                destination: owner, path: Contract.handoffObjectPath, interface: Contract.Handoff1.interface,
                member: member.name, repeat each arguments, timeout: timeout)
        } catch {
            printError("waypost: \(what): \(BusClient.message(error))")
            throw ExitCode(1)
        }
    }
}
