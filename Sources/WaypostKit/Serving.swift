import DBus
import ExternalEvents
import Synchronization
import WaypostContract

/// The app's side of the contract: `io.waypost.Application1`, answered from the open scenes.
///
/// Policy: only the dispatcher instance the app registered with may call; an event for a scene the
/// app has closed, or one the scene has no handler for, is refused with an error, so the
/// dispatcher falls through to the next destination the rules allow and it is never lost.
/// An event is acknowledged on receipt — once its scene and handler are found, on the connection's
/// thread as the call arrives (`exportedAnsweringAtOnce`) — and the handler runs after, handlers
/// one at a time in the order their events arrived: a slow handler never looks like a hung app to
/// the dispatcher (docs/delivery.md).
extension Application {
    /// Where each process serves `io.waypost.Application1` (it names the path when it registers).
    static let objectPath: ObjectPath = "/io/waypost/Application"

    var applicationInterface: Interface {
        typealias Members = Contract.Application1
        return Interface(
            Members.interface,
            methods: [
                Members.openURL.exportedAnsweringAtOnce { [weak self] call in
                    guard let self else { throw BusError(.unknownObject, "the application stopped") }
                    try checkCaller(call)
                    let (scene, uri, platform) = try call.arguments(String.self, String.self, [String: Variant].self)
                    runAfterAcknowledging(try handling(.url(uri), inScene: scene, context: Self.context(platform)))
                    return try call.reply()
                },
                Members.continueUserActivity.exportedAnsweringAtOnce { [weak self] call in
                    guard let self else { throw BusError(.unknownObject, "the application stopped") }
                    try checkCaller(call)
                    let (scene, type, activity, platform) = try call.arguments(
                        String.self, String.self, [String: Variant].self, [String: Variant].self)
                    runAfterAcknowledging(
                        try handling(.activity(Self.activity(type, activity)), inScene: scene, context: Self.context(platform)))
                    return try call.reply()
                },
                Members.receiveNotificationResponse.exportedAnsweringAtOnce { [weak self] call in
                    guard let self else { throw BusError(.unknownObject, "the application stopped") }
                    try checkCaller(call)
                    let (scene, response, platform) = try call.arguments(String.self, [String: Variant].self, [String: Variant].self)
                    runAfterAcknowledging(
                        try handling(.notificationResponse(try Self.response(response)), inScene: scene, context: Self.context(platform)))
                    return try call.reply()
                },
                Members.createScene.exported { [weak self] call in
                    guard let self else { throw BusError(.unknownObject, "the application stopped") }
                    try checkCaller(call)
                    let (declarationID, event, platform) = try call.arguments(
                        String.self, [String: Variant].self, [String: Variant].self)
                    let scene = try await createScene(declarationID, for: Self.event(event), context: Self.context(platform))
                    return try call.reply(scene)
                },
            ])
    }

    private func checkCaller(_ call: MethodCall) throws {
        let dispatcher = state.withLock { $0.dispatcher }
        guard let dispatcher, call.sender == dispatcher else {
            throw BusError(
                .accessDenied,
                "\(call.sender) is not the dispatcher \(id) registered with (\(dispatcher?.rawValue ?? "none"))")
        }
    }

    /// What a scene's handler gets: a URL, or an activity with every field it travelled with.
    enum Delivery {
        case url(String)
        case activity(ContinuedActivity)
        case notificationResponse(NotificationResponse)
    }

    /// The scene's handler called with `event`, to run once the event is acknowledged (or at once,
    /// for a launch URL routed here without a dispatcher).
    /// - Throws: the refusal the dispatcher gets when the scene is not open or has no such handler.
    func handling(_ event: Delivery, inScene sceneID: String, context: EventContext) throws -> @Sendable () async throws -> Void {
        enum Found { case url(URLHandler), activity(ActivityHandler), response(NotificationResponseHandler) }
        let found: Found? = try state.withLock { state in
            guard let scene = state.scenes[sceneID] else {
                throw BusError(Contract.Failure.unknownScene.errorName, "scene \"\(sceneID)\" of \(id) is not open (it was closed)")
            }
            switch event {
            case .url: return scene.openURL.map(Found.url)
            case .activity(let activity): return scene.continueActivity[activity.type].map(Found.activity)
            case .notificationResponse: return scene.notificationResponse.map(Found.response)
            }
        }
        switch (found, event) {
        case (.url(let handler)?, .url(let url)): return { try await handler(url, context) }
        case (.activity(let handler)?, .activity(let activity)): return { try await handler(activity, context) }
        case (.response(let handler)?, .notificationResponse(let response)): return { try await handler(response, context) }
        case (_, .notificationResponse):
            throw BusError(Contract.Failure.noHandler.errorName, "scene \"\(sceneID)\" of \(id) has no onNotificationResponse handler")
        case (_, .url):
            throw BusError(Contract.Failure.noHandler.errorName, "scene \"\(sceneID)\" of \(id) has no onOpenURL handler")
        case (_, .activity(let activity)):
            throw BusError(
                Contract.Failure.noHandler.errorName, "scene \"\(sceneID)\" of \(id) does not continue activities of type \"\(activity.type)\"")
        }
    }

    /// Runs handlers one after another, in the order their events were acknowledged. What a handler
    /// throws then is the app's own to report: the dispatcher has been told the event arrived.
    private func runAfterAcknowledging(_ handler: @escaping @Sendable () async throws -> Void) {
        state.withLock { state in
            let previous = state.lastHandler
            state.lastHandler = Task {
                await previous?.value
                try? await handler()
            }
        }
    }

    /// Returns once every handler of an event acknowledged so far has run (for tests).
    func handlersFinished() async {
        await state.withLock { $0.lastHandler }?.value
    }

    /// Asks the app for a scene of `declarationID`, waits until the dispatcher knows the scene,
    /// then answers with it; the scene's handler gets the event after that answer.
    private func createScene(_ declarationID: String, for event: Delivery, context: EventContext) async throws -> String {
        guard let declaration = declarations.first(where: { $0.id == declarationID }) else {
            throw BusError(Contract.Failure.unknownDeclaration.errorName, "\(id) declares no scene \"\(declarationID)\"")
        }
        guard let factory = state.withLock({ $0.createScene }) else {
            throw BusError(Contract.Failure.noHandler.errorName, "\(id) opens no new scenes (it set no onCreateScene handler)")
        }
        let routed: ExternalEvent = switch event {
        case .url(let url): .url(url)
        case .activity(let activity):
            .activity(UserActivity(
                type: activity.type, targetContentIdentifier: activity.targetContentIdentifier, webpageURL: activity.webpageURL,
                title: activity.title, userInfo: activity.userInfo.mapValues { $0.stringValue ?? "\($0)" }))
        case .notificationResponse(let response):
            .activity(UserActivity(type: "io.waypost.notification-response", targetContentIdentifier: response.targetContentIdentifier))
        }
        let scene = try await factory(SceneRequest(declaration: declaration, event: routed, context: context))
        guard scene.application === self, scene.declaration == declarationID, scene.isOpen else {
            throw BusError(
                .failed, "the onCreateScene handler of \(id) returned scene \"\(scene.id)\" of \"\(scene.declaration)\", "
                    + "not an open scene of \"\(declarationID)\"")
        }
        let handler = try handling(event, inScene: scene.id, context: context)
        try await synchronize()
        runAfterAcknowledging(handler)
        return scene.id
    }

    static func context(_ platform: [String: Variant]) -> EventContext {
        let data = Contract.PlatformData(platform)
        return EventContext(activationToken: data.activationToken, desktopStartupID: data.desktopStartupID)
    }

    /// A `CreateScene` event: `uri`, or `activity-type` with the activity keys.
    static func event(_ event: [String: Variant]) throws(BusError) -> Delivery {
        switch try readable({ () throws(Contract.KeyError) in try Contract.SceneEvent(event) }) {
        case .url(let uri): .url(uri)
        case .activity(let type, let activity): .activity(try Self.activity(type, activity))
        case .notificationResponse(let response): .notificationResponse(NotificationResponse(response))
        }
    }

    static func response(_ response: [String: Variant]) throws(BusError) -> NotificationResponse {
        NotificationResponse(try readable { () throws(Contract.KeyError) in try Contract.NotificationResponse(response) })
    }

    static func activity(_ type: String, _ activity: [String: Variant]) throws(BusError) -> ContinuedActivity {
        ContinuedActivity(type: type, try readable { () throws(Contract.KeyError) in try Contract.ActivityDetails(activity) })
    }

    /// A dictionary from the dispatcher that breaks the contract is refused as `InvalidArgument`.
    private static func readable<Value>(_ read: () throws(Contract.KeyError) -> Value) throws(BusError) -> Value {
        do { return try read() } catch { throw BusError(Contract.Failure.invalidArgument.errorName, error.description) }
    }
}
