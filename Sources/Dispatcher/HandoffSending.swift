import DBus
import ExternalEvents
import Glibc
import Handoff
import Logging
import WaypostContract

// Sending: the current activity goes to a paired device through its transport (kdeconnectd's share
// plugin or GSConnect's shareUri action, HandoffTransports.swift), from the daemon, for
// `waypost handoff send` and WaypostKit's `Application.handoff(to:)` alike.

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

extension HandoffService {
    /// Sends the current activity (of `app`'s scenes when given) to `device` (an id or a name; the only
    /// reachable device when empty) through the transport it is on: a Waypost handoff URL, or to a
    /// phone or tablet (or with `webpageOnly`) its webpage URL. Over KDE Connect only to kdeconnectd
    /// (its program checked): a process posing as KDE Connect would learn the activity. A share has no
    /// acknowledgement on either transport: reachable is all that is known.
    /// - Returns: the device's name and the URL shared.
    /// - Throws: `unknownActivity` with no eligible current activity; `handoff` naming a device that
    ///   is paired but unreachable, not paired, not chosen, no transport running, or a KDE Connect
    ///   that is not kdeconnectd; `userInfoTooLarge` over the handoff's limits.
    func send(to device: String, app: String?, webpageOnly: Bool) async throws(DispatchError) -> (device: String, url: String) {
        guard let current = await service.dispatcher.currentActivity(ofApp: app) else {
            throw .unknownActivity(app ?? "current activity", reason: "no scene\(app.map { " of \($0)" } ?? "") has a current activity eligible for Handoff")
        }
        let details: Contract.ActivityDetails
        do { details = try Contract.ActivityDetails(current.activity) } catch {
            throw .invalidArgument(current.activityType, reason: "\(error)")
        }
        let target: PairedDevice
        let transports: [any HandoffTransport]
        do throws(HandoffFailure) {
            transports = try await self.transports()
            target = try await Self.choose(device, reachable: try await Self.devices(reachable: true, of: transports)) { () throws(HandoffFailure) in
                try await Self.devices(reachable: false, of: transports)
            }
        } catch { throw .handoff(error) }
        guard let transport = transports.first(where: { $0.kind == target.transport }) else {
            throw .handoff(.transportAbsent(target.transport, "gone while the device was chosen"))
        }
        let url: String
        if webpageOnly || target.takesWebpageOnly {
            guard let webpage = details.webpageURL else {
                throw .handoff(.noWebpage(device: target.name, activityType: current.activityType))
            }
            url = webpage
        } else {
            let selfName = await transport.announcedName() ?? "another device"
            let payload = HandoffPayload(
                activityType: current.activityType, title: details.title, targetContentIdentifier: details.targetContentIdentifier,
                webpageURL: details.webpageURL, userInfo: details.userInfo.mapValues(UserInfoValue.init), sendingDevice: selfName,
                sentAt: now())
            do { url = try payload.url() } catch {
                throw .userInfoTooLarge(activityType: current.activityType, reason: error.description)
            }
        }
        try await transport.share(url, to: target)
        logger.info("handoff: \(current.activityType) sent to \(OutsideText.shown(target.name, limit: 64)) (\(OutsideText.shown(target.id, limit: 64)), \(target.transport.rawValue))")
        return (target.name, url)
    }

    /// The device `given` names among the reachable ones (by id or name), or the only one; when it
    /// names none, whether it is paired at all (`paired` asks the transports). Ids match with "_" and
    /// "-" alike (`DeviceID`).
    static func choose(
        _ given: String, reachable: [PairedDevice], paired: () async throws(HandoffFailure) -> [PairedDevice]
    ) async throws(HandoffFailure) -> PairedDevice {
        let names = reachable.map { "\($0.name) (\($0.id))" }
        if given.isEmpty {
            guard reachable.count == 1, let only = reachable.first else { throw .chooseDevice(reachable: names) }
            return only
        }
        let id = DeviceID.canonical(given)
        if let found = reachable.first(where: { $0.canonicalID == id || $0.name == given }) { return found }
        if let known = try await paired().first(where: { $0.canonicalID == id || $0.name == given }) {
            throw .unreachable(device: known.name, reachable: names)
        }
        throw .noSuchDevice(given, reachable: names)
    }
}
