import DBus
import Foundation
import Synchronization
import TestSupport
import WaypostContract

/// A participating app in this process on a peer connection of its own (`PeerDesktop`), behaving
/// as `sample_app.py` does with the same config: it registers, declares, opens its scenes, logs
/// each event it receives (the same records), and answers as its `behaviour` says ("ok", "hang",
/// "refuse", "exit": its connection closes mid-call, as when its process dies).
final class PeerApp: Sendable {
    let appID: String
    /// What its records call `pid`: the number of this app process among the desktop's.
    let process: Int32
    private let app: SampleApp
    private let connection: Connection
    private let log: AppLog
    private let state: Mutex<State>
    /// Opened when the app stops: a call it hangs on ends then.
    private let stopped = Gate()

    private struct State {
        var scenes: [String: String] = [:]
        var nextScene = 1
        var behaviour: [String: String]
        var running = true
    }

    static let objectPath: ObjectPath = "/io/waypost/sample"

    init(_ app: SampleApp, process: Int32, connection: Connection, log: AppLog) async throws {
        (self.app, self.appID, self.process, self.connection, self.log) = (app, app.id, process, connection, log)
        state = Mutex(State(behaviour: app.config["behaviour"] as? [String: String] ?? [:]))
        try connection.export(Self.objectPath, interfaces: [application])
    }

    var isRunning: Bool { state.withLock { $0.running } }

    /// Registers, declares, opens the configured scenes (and publishes, announces ready) as the
    /// sample app's start does.
    func start() async throws {
        let options: [String: Variant] = [
            "single-scene": .boolean(app.config["single_scene"] as? Bool ?? false),
            "announces-ready": .boolean(announcesReady),
        ]
        try await dispatcher(Contract.Dispatcher1.registerApplication, appID, Self.objectPath, options)
        let declarations = (app.config["declarations"] as? [[Any]] ?? []).map { pair -> Structure<String, [String: Variant]> in
            let (id, properties) = (pair[0] as! String, pair[1] as! [String: Any])
            var entry: [String: Variant] = ["kind": .string(properties["kind"] as! String)]
            for key in ["matching", "content-types"] {
                if let values = properties[key] as? [String] { entry[key] = Variant(values) }
            }
            return Structure((id, entry))
        }
        try await dispatcher(Contract.Dispatcher1.declareScenes, declarations)
        for scene in app.config["scenes"] as? [[String: Any]] ?? [] {
            let modifiers = (scene["modifiers"] as? [[[String]]] ?? []).map { ($0[0], $0[1]) }
            try await addScene(scene["id"] as! String, scene["declaration"] as! String, modifiers)
        }
        if announcesReady { try await dispatcher(Contract.Dispatcher1.ready) }
        log(["event": "ready"])
    }

    private var announcesReady: Bool { app.config["announce_ready"] as? Bool ?? false }

    /// The app's process ends: its connection closes, and a call it hangs on ends.
    func stop() {
        state.withLock { $0.running = false }
        connection.close()
        stopped.open()
    }

    // MARK: What its UI does (io.waypost.test.Control)

    /// - Parameter activity: what `Publish` sets as the scene's current activity.
    func control(
        _ member: MemberName, _ arguments: [String], modifiers: [([String], [String])], activity: [String: Variant] = [:]
    ) async throws {
        switch member.rawValue {
        case "OpenScene": try await addScene(arguments[0], arguments[1], modifiers)
        case "SetExternalEvents":
            try await dispatcher(Contract.Dispatcher1.setExternalEvents, arguments[0], Self.structures(modifiers))
        case "ForgetScene": _ = state.withLock { $0.scenes.removeValue(forKey: arguments[0]) }
        case "CloseScene":
            try await dispatcher(Contract.Dispatcher1.removeScene, arguments[0])
            _ = state.withLock { $0.scenes.removeValue(forKey: arguments[0]) }
        case "Focus": try await dispatcher(Contract.Dispatcher1.activateScene, arguments[0])
        case "Publish":
            try await dispatcher(Contract.Dispatcher1.setCurrentActivity, arguments[0], arguments[1], activity)
        case "SetBehaviour":
            let parts = arguments[0].split(separator: "=", maxSplits: 1).map(String.init)
            state.withLock { $0.behaviour[parts[0]] = parts[1] }
        default: throw TestFailure("a peer app cannot \(member)")
        }
    }

    /// Posts a notification (`PostNotification`); the dispatcher's error name, or "" when it accepted.
    func notify(_ id: String, _ content: [String: Variant]) async -> String {
        await errorName { try await self.dispatcher(Contract.Dispatcher1.postNotification, id, content) }
    }

    /// Withdraws its notifications (`WithdrawNotifications`); the error name, or "".
    func withdraw(_ ids: [String]) async -> String {
        await errorName { try await self.dispatcher(Contract.Dispatcher1.withdrawNotifications, ids) }
    }

    /// Where a click on a notification would go (`ExplainNotification`): the scene, or the error name.
    func explainNotification(_ appID: String, _ id: String) async -> String {
        do {
            let outcome = try await connection.call(
                destination: Contract.busName, path: Contract.objectPath, interface: Contract.Dispatcher1.interface,
                member: Contract.Dispatcher1.explainNotification.name, appID, id
            ).decode([String: Variant].self)
            return (try? (outcome["scene-id"] ?? outcome["action"])?.decode(as: String.self)) ?? ""
        } catch let error as BusError { return error.name.rawValue } catch { return "\(error)" }
    }

    private func errorName(_ call: () async throws -> Void) async -> String {
        do { try await call(); return "" } catch let error as BusError { return error.name.rawValue } catch { return "\(error)" }
    }

    private func addScene(_ scene: String, _ declaration: String, _ modifiers: [([String], [String])]) async throws {
        try await dispatcher(Contract.Dispatcher1.addScene, scene, declaration)
        state.withLock { $0.scenes[scene] = declaration }
        if !modifiers.isEmpty {
            try await dispatcher(Contract.Dispatcher1.setExternalEvents, scene, Self.structures(modifiers))
        }
    }

    private static func structures(_ modifiers: [([String], [String])]) -> [Structure<[String], [String]>] {
        modifiers.map { Structure(($0.0, $0.1)) }
    }

    private func dispatcher<each Argument: BusValue>(_ member: Contract.Member, _ arguments: repeat each Argument) async throws {
        _ = try await connection.call(
            destination: Contract.busName, path: Contract.objectPath, interface: Contract.Dispatcher1.interface,
            member: member.name, repeat each arguments)
    }

    // MARK: io.waypost.Application1

    private var application: Interface {
        typealias Members = Contract.Application1
        return Interface(Members.interface, methods: [
            Members.openURL.exported { call in
                let (scene, uri, platform) = try call.arguments(String.self, String.self, [String: Variant].self)
                try self.requireScene(scene)
                self.log(["event": "OpenURL", "scene": scene, "uri": uri, "platform_data": Self.plain(platform)])
                try await self.act("OpenURL")
                return try call.reply()
            },
            Members.continueUserActivity.exported { call in
                let (scene, type, activity, platform) = try call.arguments(
                    String.self, String.self, [String: Variant].self, [String: Variant].self)
                let userInfo = (try? activity["user-info"]?.decode(as: [String: Variant].self)) ?? [:]
                self.log([
                    "event": "ContinueUserActivity", "scene": scene, "type": type, "activity": Self.plain(activity),
                    "platform_data": Self.plain(platform), "user_info_types": userInfo.mapValues(Self.typeName),
                ])
                try await self.act("ContinueUserActivity")
                return try call.reply()
            },
            Members.receiveNotificationResponse.exported { call in
                let (scene, response, platform) = try call.arguments(String.self, [String: Variant].self, [String: Variant].self)
                try self.requireScene(scene)
                self.log([
                    "event": "ReceiveNotificationResponse", "scene": scene, "response": Self.plain(response),
                    "platform_data": Self.plain(platform),
                ])
                try await self.act("ReceiveNotificationResponse")
                return try call.reply()
            },
            Members.createScene.exported { call in
                let (declaration, event, platform) = try call.arguments(String.self, [String: Variant].self, [String: Variant].self)
                let (scene, how) = self.state.withLock { state in
                    defer { state.nextScene += 1 }
                    return ("\(declaration)-\(self.process)-\(state.nextScene)", state.behaviour["CreateScene"] ?? "ok")
                }
                // As real apps do when a window opens: call back into the dispatcher before replying.
                if how == "ok" { try await self.addScene(scene, declaration, []) }
                self.log([
                    "event": "CreateScene", "declaration": declaration, "scene": scene, "payload": Self.plain(event),
                    "platform_data": Self.plain(platform),
                ])
                try await self.act("CreateScene")
                return try call.reply(scene)
            },
        ])
    }

    private func requireScene(_ scene: String) throws {
        guard state.withLock({ $0.scenes[scene] != nil }) else { throw BusError("io.waypost.test.NoSuchScene", "no scene \(scene)") }
    }

    /// Answers as the behaviour says: "hang" until the app stops, "exit" ends it mid-call.
    private func act(_ member: String) async throws {
        switch state.withLock({ $0.behaviour[member] ?? "ok" }) {
        case "hang":
            await stopped.wait()
            throw BusError(.failed, "the app stopped")
        case "exit":
            stop()
            throw BusError(.failed, "the app exited")
        case "refuse": throw BusError("io.waypost.test.Refused", "the sample app refuses")
        default: return
        }
    }

    private func log(_ record: [String: Any]) {
        var record = record
        record["pid"] = Int(process)
        log.append(appID, record)
    }

    /// Values as `sample_app.py`'s `plain` gives them: JSON's kinds.
    static func plain(_ value: Variant) -> Any {
        switch value {
        case .byte(let byte): Int(byte)
        case .boolean(let bool): bool
        case .int16(let number): Int(number)
        case .uint16(let number): Int(number)
        case .int32(let number): Int(number)
        case .uint32(let number): Int(number)
        case .int64(let number): Int(number)
        case .uint64(let number): Int(number)
        case .double(let number): number
        case .string(let string): string
        case .objectPath(let path): path.rawValue
        case .signature(let signature): signature.rawValue
        case .array(_, let elements): elements.map(plain)
        case .structure(let fields): fields.map(plain)
        case .variant(let inner): plain(inner)
        case .dictionary(_, _, let entries):
            Dictionary(entries.map { (key, value) in ("\(plain(key))", plain(value)) }, uniquingKeysWith: { first, _ in first })
        }
    }

    static func plain(_ map: [String: Variant]) -> [String: Any] { map.mapValues { plain($0) } }

    /// The type dbus-python gives a received value, by its class name (`user_info_types`).
    static func typeName(_ value: Variant) -> String {
        switch value {
        case .byte: "Byte"
        case .boolean: "Boolean"
        case .int16: "Int16"
        case .uint16: "UInt16"
        case .int32: "Int32"
        case .uint32: "UInt32"
        case .int64: "Int64"
        case .uint64: "UInt64"
        case .double: "Double"
        case .string: "String"
        case .objectPath: "ObjectPath"
        case .signature: "Signature"
        case .array: "Array"
        case .structure: "Struct"
        case .dictionary: "Dictionary"
        case .variant(let inner): typeName(inner)
        }
    }
}
