/// One app's scenes and one event: what `waypost explain --scenario` reads.
///
/// Decoding is strict: an unknown key, a wrong type, a kind other than `windowGroup` or
/// `documentGroup`, an event that is not exactly one of `url` or `activity` are errors that name the
/// key and value. Duplicate ids and scenes of unknown declarations are caught by `router(contentTypes:)`.
public struct Scenario: Sendable, Hashable, Decodable {
    public var multipleScenes: Bool
    public var declarations: [SceneDeclaration]
    /// Open scenes in search order, the first searched first.
    public var openScenes: [OpenScene]
    public var event: ExternalEvent

    public init(
        multipleScenes: Bool = true, declarations: [SceneDeclaration], openScenes: [OpenScene] = [],
        event: ExternalEvent
    ) {
        self.multipleScenes = multipleScenes
        self.declarations = declarations
        self.openScenes = openScenes
        self.event = event
    }

    /// The router for this scenario's app.
    /// - Throws: `RoutingError` for a duplicate id or a scene of an unknown declaration.
    public func router(contentTypes: (any ContentTypeResolving)?) throws(RoutingError) -> SceneRouter {
        try SceneRouter(
            declarations: declarations, openScenes: openScenes,
            supportsMultipleScenes: multipleScenes, contentTypes: contentTypes)
    }

    public init(from decoder: any Decoder) throws {
        let keys = try StrictKeys.check(decoder, allowed: ["multipleScenes", "declarations", "openScenes", "event"])
        multipleScenes = try keys.decodeIfPresent(Bool.self, forKey: "multipleScenes") ?? true
        declarations = try keys.decode([DecodedDeclaration].self, forKey: "declarations").map(\.value)
        openScenes = try keys.decodeIfPresent([DecodedScene].self, forKey: "openScenes")?.map(\.value) ?? []
        event = try keys.decode(DecodedEvent.self, forKey: "event").value
    }
}

/// Any key, so that unknown ones can be named in an error.
struct StrictKeys: CodingKey, ExpressibleByStringLiteral {
    let stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
    init(stringLiteral value: String) { stringValue = value }

    static func check(_ decoder: any Decoder, allowed: [String]) throws -> KeyedDecodingContainer<StrictKeys> {
        let container = try decoder.container(keyedBy: StrictKeys.self)
        if let unknown = container.allKeys.first(where: { !allowed.contains($0.stringValue) }) {
            throw DecodingError.dataCorrupted(.init(
                codingPath: container.codingPath,
                debugDescription: "unknown key \"\(unknown.stringValue)\"; expected one of: "
                    + allowed.joined(separator: ", ")))
        }
        return container
    }
}

private struct DecodedDeclaration: Decodable {
    let value: SceneDeclaration

    init(from decoder: any Decoder) throws {
        let keys = try StrictKeys.check(decoder, allowed: ["id", "kind", "matching", "contentTypes"])
        let id = try keys.decode(String.self, forKey: "id")
        let matching = try keys.decodeIfPresent([String].self, forKey: "matching").map(ConditionSet.init)
        switch try keys.decode(String.self, forKey: "kind") {
        case "windowGroup":
            if keys.contains("contentTypes") {
                throw DecodingError.dataCorruptedError(
                    forKey: "contentTypes", in: keys,
                    debugDescription: "window group \"\(id)\" cannot have contentTypes; only a documentGroup has them")
            }
            value = .windowGroup(id, matching: matching)
        case "documentGroup":
            value = .documentGroup(id, contentTypes: try keys.decode([String].self, forKey: "contentTypes"), matching: matching)
        case let kind:
            throw DecodingError.dataCorruptedError(
                forKey: "kind", in: keys,
                debugDescription: "unknown kind \"\(kind)\"; expected \"windowGroup\" or \"documentGroup\"")
        }
    }
}

private struct DecodedScene: Decodable {
    let value: OpenScene

    init(from decoder: any Decoder) throws {
        let keys = try StrictKeys.check(decoder, allowed: ["id", "declaration", "modifiers"])
        value = OpenScene(
            id: try keys.decode(String.self, forKey: "id"),
            declaration: try keys.decode(String.self, forKey: "declaration"),
            modifiers: try keys.decodeIfPresent([DecodedModifier].self, forKey: "modifiers")?.map(\.value) ?? [])
    }
}

private struct DecodedModifier: Decodable {
    let value: EventPreference

    init(from decoder: any Decoder) throws {
        let keys = try StrictKeys.check(decoder, allowed: ["preferring", "allowing"])
        value = EventPreference(
            preferring: ConditionSet(try keys.decodeIfPresent([String].self, forKey: "preferring") ?? []),
            allowing: ConditionSet(try keys.decodeIfPresent([String].self, forKey: "allowing") ?? []))
    }
}

private struct DecodedEvent: Decodable {
    let value: ExternalEvent

    init(from decoder: any Decoder) throws {
        let keys = try StrictKeys.check(decoder, allowed: ["url", "activity"])
        switch (keys.contains("url"), keys.contains("activity")) {
        case (true, false):
            value = .url(try keys.decode(String.self, forKey: "url"))
        case (false, true):
            value = .activity(try keys.decode(DecodedActivity.self, forKey: "activity").value)
        default:
            throw DecodingError.dataCorrupted(.init(
                codingPath: decoder.codingPath,
                debugDescription: "an event has exactly one of \"url\" or \"activity\""))
        }
    }
}

private struct DecodedActivity: Decodable {
    let value: UserActivity

    init(from decoder: any Decoder) throws {
        let keys = try StrictKeys.check(
            decoder, allowed: ["type", "targetContentIdentifier", "webpageURL", "title", "userInfo"])
        value = UserActivity(
            type: try keys.decode(String.self, forKey: "type"),
            targetContentIdentifier: try keys.decodeIfPresent(String.self, forKey: "targetContentIdentifier"),
            webpageURL: try keys.decodeIfPresent(String.self, forKey: "webpageURL"),
            title: try keys.decodeIfPresent(String.self, forKey: "title"),
            userInfo: try keys.decodeIfPresent([String: String].self, forKey: "userInfo") ?? [:])
    }
}
