import DBus
import ExternalEvents
import Glibc
import Handoff
import Logging
import WaypostContract

// Sending: the current activity goes to a paired device through KDE Connect's share plugin, from the
// daemon, for `waypost handoff send` and WaypostKit's `Application.handoff(to:)` alike.

extension Dispatcher {
    /// The current activity of `app`'s most recently active scene that has one eligible for Handoff
    /// (of any app's when nil).
    func currentActivity(ofApp app: String?) -> Contract.CurrentActivity? {
        guard let app else { return currentActivity }
        var best: (stamp: UInt64, current: Contract.CurrentActivity)?
        for (key, current) in activities.current where key.app == app && current.details.eligibleForHandoff {
            guard let stamp = registry.lastActivated(scene: key.scene, in: key.app), stamp > (best?.stamp ?? 0),
                !Self.hasExpired(current.details.expirationDate)
            else { continue }
            best = (stamp, Contract.CurrentActivity(appID: key.app, sceneID: key.scene, activityType: current.type, activity: current.activity))
        }
        return best?.current
    }
}

/// A paired device as KDE Connect 22.12 describes it.
struct PairedDevice: Sendable {
    var id: String
    var name: String
    var type: String
    /// Phones and tablets run no Waypost: they get the webpage URL (Android's App Links take it there).
    var takesWebpageOnly: Bool { type == "phone" || type == "tablet" }
}

extension HandoffService {
    static let daemonPath: ObjectPath = "/modules/kdeconnect"

    /// The paired devices (reachable ones only when `reachable`), asked of `kdeConnect` (its checked owner).
    /// - Throws: `kdeConnectAbsent` when KDE Connect does not answer.
    func devices(reachable: Bool, of kdeConnect: BusName) async throws(HandoffFailure) -> [PairedDevice] {
        let ids: [String]
        do {
            ids = try await connection.call(
                destination: kdeConnect, path: Self.daemonPath, interface: "org.kde.kdeconnect.daemon", member: "devices",
                reachable, true, timeout: .seconds(10)
            ).decode([String].self)
        } catch {
            throw .kdeConnectAbsent("\(error)")
        }
        var devices: [PairedDevice] = []
        for id in ids {
            devices.append(PairedDevice(
                id: id, name: await property(id, "name", of: kdeConnect) ?? id, type: await property(id, "type", of: kdeConnect) ?? "unknown"))
        }
        return devices
    }

    func property(_ id: String, _ property: String, of kdeConnect: BusName) async -> String? {
        guard let path = try? ObjectPath(Self.daemonPath.rawValue + "/devices/" + id),
            let value = try? await connection.call(
                destination: kdeConnect, path: path, interface: "org.freedesktop.DBus.Properties", member: "Get",
                "org.kde.kdeconnect.device", property, timeout: .seconds(5)
            ).decode(Variant.self),
            case .string(let text) = value
        else { return nil }
        return text
    }

    /// Sends the current activity (of `app`'s scenes when given) to `device` (an id or a name; the only
    /// reachable device when empty): a Waypost handoff URL, or to a phone or tablet (or with
    /// `webpageOnly`) its webpage URL. Only to kdeconnectd (its program checked): a process posing as
    /// KDE Connect would learn the activity. A share has no acknowledgement: reachable is all that is known.
    /// - Returns: the device's name and the URL shared.
    /// - Throws: `unknownActivity` with no eligible current activity; `handoff` naming a device that
    ///   is paired but unreachable, not paired, not chosen, or a KDE Connect that is absent or not
    ///   kdeconnectd; `userInfoTooLarge` over the handoff's limits.
    func send(to device: String, app: String?, webpageOnly: Bool) async throws(DispatchError) -> (device: String, url: String) {
        guard let current = await service.dispatcher.currentActivity(ofApp: app) else {
            throw .unknownActivity(app ?? "current activity", reason: "no scene\(app.map { " of \($0)" } ?? "") has a current activity eligible for Handoff")
        }
        let details: Contract.ActivityDetails
        do { details = try Contract.ActivityDetails(current.activity) } catch {
            throw .invalidArgument(current.activityType, reason: "\(error)")
        }
        let target: PairedDevice
        let kdeConnect: BusName
        do throws(HandoffFailure) {
            kdeConnect = try await senders.owner(on: connection, logger: logger)
            target = try await Self.choose(device, reachable: try await devices(reachable: true, of: kdeConnect)) { () throws(HandoffFailure) in
                try await self.devices(reachable: false, of: kdeConnect)
            }
        } catch { throw .handoff(error) }
        let url: String
        if webpageOnly || target.takesWebpageOnly {
            guard let webpage = details.webpageURL else {
                throw .handoff(.noWebpage(device: target.name, activityType: current.activityType))
            }
            url = webpage
        } else {
            let selfName = (try? await connection.call(
                destination: kdeConnect, path: Self.daemonPath, interface: "org.kde.kdeconnect.daemon", member: "announcedName",
                timeout: .seconds(5)
            ).decode(String.self)) ?? "another device"
            let payload = HandoffPayload(
                activityType: current.activityType, title: details.title, targetContentIdentifier: details.targetContentIdentifier,
                webpageURL: details.webpageURL, userInfo: details.userInfo.mapValues(UserInfoValue.init), sendingDevice: selfName,
                sentAt: now())
            do { url = try payload.url() } catch {
                throw .userInfoTooLarge(activityType: current.activityType, reason: error.description)
            }
        }
        try await share(url, to: target, through: kdeConnect)
        logger.info("handoff: \(current.activityType) sent to \(OutsideText.shown(target.name, limit: 64)) (\(target.id))")
        return (target.name, url)
    }

    /// The device `given` names among the reachable ones (by id or name), or the only one; when it
    /// names none, whether it is paired at all (`paired` asks KDE Connect).
    static func choose(
        _ given: String, reachable: [PairedDevice], paired: () async throws(HandoffFailure) -> [PairedDevice]
    ) async throws(HandoffFailure) -> PairedDevice {
        let names = reachable.map { "\($0.name) (\($0.id))" }
        if given.isEmpty {
            guard reachable.count == 1, let only = reachable.first else { throw .chooseDevice(reachable: names) }
            return only
        }
        if let found = reachable.first(where: { $0.id == given || $0.name == given }) { return found }
        if let known = try await paired().first(where: { $0.id == given || $0.name == given }) {
            throw .unreachable(device: known.name, reachable: names)
        }
        throw .noSuchDevice(given, reachable: names)
    }

    /// `shareUrl`. A re-announcement briefly removes the share object (`UnknownObject`), and KDE
    /// Connect signals nothing when it is back: asked again every 100 ms, for two seconds at most.
    private func share(_ url: String, to device: PairedDevice, through kdeConnect: BusName) async throws(DispatchError) {
        guard let path = try? ObjectPath(Self.daemonPath.rawValue + "/devices/" + device.id + "/share") else {
            throw .invalidArgument(device.id, reason: "not a KDE Connect device id")
        }
        for attempt in 0..<20 {
            do {
                _ = try await connection.call(
                    destination: kdeConnect, path: path, interface: "org.kde.kdeconnect.device.share", member: "shareUrl", url,
                    timeout: .seconds(10))
                return
            } catch let error as BusError where error.name.rawValue == "org.freedesktop.DBus.Error.UnknownObject" && attempt < 19 {
                try? await Task.sleep(for: .milliseconds(100))
            } catch {
                throw .deliveryFailed(OutsideText.shown(device.name, limit: 64), attempts: ["KDE Connect's shareUrl: \(error)"])
            }
        }
    }
}
