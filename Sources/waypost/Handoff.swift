import ArgumentParser
import DBus
import ExternalEvents
import Glibc
import Handoff
import WaypostContract

/// `waypost handoff …`: continue an activity on another device, over KDE Connect.
struct HandoffCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "handoff",
        abstract: "Hand the current activity to another device over KDE Connect or GSConnect, and take offers from them.",
        discussion: """
            A device running Waypost receives a waypost-handoff: URL and OFFERS the activity: nothing \
            continues until the user accepts (waypost handoff accept ID, its notification, a desktop \
            search for its words) or trusts that device (waypost handoff trust). An offer is a device's \
            only when kdeconnectd itself said so; any other (GSConnect's among them: it says nothing of \
            what it opens) says it is unverified, and always waits. \
            Offers last 5 minutes; at most 32 are kept (a new one replaces the oldest unverified one), \
            and at most 8 unverified ones of one caller. A device without Waypost (a phone) receives \
            the activity's webpage URL. See docs/handoff.md.
            """,
        subcommands: [Devices.self, Send.self, List.self, Accept.self, Trust.self])
}

/// The paired devices as the daemon lists them (`ListDevices`), from kdeconnectd or GSConnect.
enum HandoffDevices {
    static func list(_ connection: Connection, reachable: Bool) async throws -> [Contract.HandoffDevice] {
        let reply = try await HandoffCommand.call(connection, Contract.Handoff1.listDevices, reachable, failing: "cannot list devices")
        let list = try reply.decode([[String: Variant]].self)
        return try BusClient.decode("devices") { () throws(Contract.KeyError) in
            var devices: [Contract.HandoffDevice] = []
            for fields in list { devices.append(try Contract.HandoffDevice(fields)) }
            return devices
        }
    }

    /// The device `given` names (id, "_" and "-" alike, or name).
    static func device(_ given: String, among devices: [Contract.HandoffDevice]) throws -> Contract.HandoffDevice {
        let id = spelled(given)
        if let device = devices.first(where: { spelled($0.id) == id || $0.name == given }) { return device }
        printError("waypost: no paired device \(OutsideText.shown(given, limit: 64)): "
            + (devices.isEmpty ? "none is paired" : devices.map { "\(OutsideText.shown($0.name, limit: 64)) (\(OutsideText.shown($0.id, limit: 64)))" }.joined(separator: ", ")))
        throw ExitCode(1)
    }

    /// One spelling of an id: kdeconnectd shows a GSConnect device's "-" as "_".
    static func spelled(_ id: String) -> String { String(id.map { $0 == "_" ? "-" : $0 }) }
}

extension HandoffCommand {
    struct Devices: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "devices",
            abstract: "List the paired, reachable devices, whether each runs Waypost as far as known, and its transport.",
            discussion: """
                One line a device: id, name, type, Waypost, transport (kdeconnectd or gsconnect). \
                Devices come from kdeconnectd (KDE Connect) and GSConnect, whichever runs; a device \
                both know is listed once, on kdeconnectd.
                """)

        func run() async throws {
            let connection = try await BusClient.connect()
            for device in try await HandoffDevices.list(connection, reachable: true) {
                // Devices that handed something over here run Waypost (the daemon notes them).
                let waypost = device.type == "phone" || device.type == "tablet" ? "no: gets webpage URLs"
                    : device.handedOver ? "yes: handed over here before" : "unknown: gets Waypost handoffs"
                print("\(OutsideText.shown(device.id, limit: 64))\t\(OutsideText.shown(device.name, limit: 64))\t"
                    + "\(OutsideText.shown(device.type, limit: 16))\t\(waypost)\t\(OutsideText.shown(device.transport, limit: 16))")
            }
        }
    }

    struct Send: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "send",
            abstract: "Send the current activity (of the most recently active eligible scene) to a device.",
            discussion: """
                To a phone or tablet, only the activity's webpage URL goes. Through the device's \
                transport (kdeconnectd or GSConnect); a share has no acknowledgement: the device is \
                checked reachable first (a paired one that is not is named so), and that is all that \
                can be known. Over KDE Connect, sent only to kdeconnectd itself.
                """)

        @Option(help: "The device's id or name (default: the only reachable one).")
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
            commandName: "list",
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
            commandName: "accept",
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
            commandName: "trust",
            abstract: "Let a paired device's handoffs continue without asking (--revoke: ask again).",
            discussion: """
                Only offers kdeconnectd said it received from that device; a local one always asks, and \
                so does one through GSConnect, which says nothing of what it opens (docs/handoff.md).
                """)

        @ArgumentParser.Argument(help: "The device's id or name (waypost handoff devices).")
        var device: String

        @Flag(help: "Ask again for this device's handoffs.")
        var revoke = false

        func run() async throws {
            let connection = try await BusClient.connect()
            let target = try HandoffDevices.device(device, among: try await HandoffDevices.list(connection, reachable: false))
            _ = try await HandoffCommand.call(
                connection, Contract.Handoff1.trustDevice, target.id, !revoke, failing: "cannot change trust in \(OutsideText.shown(target.name, limit: 64))")
            let name = OutsideText.shown(target.name, limit: 64)
            print(revoke ? "\(name)'s handoffs will be offered" : "\(name)'s handoffs continue without asking")
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
