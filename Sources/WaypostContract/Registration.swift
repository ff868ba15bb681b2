public import DBus

// What an app tells the dispatcher about itself: RegisterApplication's options, DeclareScenes'
// declarations and SetExternalEvents' modifiers (Status reports the last two back).

extension Contract {
    /// `RegisterApplication`'s `options`; an absent key is false.
    public struct RegistrationOptions: Sendable, Hashable {
        /// The app supports one scene only; all modifiers are ignored.
        public var singleScene: Bool
        /// Events held for the process's launch wait for its `Ready` call instead of its `DeclareScenes`.
        public var announcesReady: Bool

        public init(singleScene: Bool = false, announcesReady: Bool = false) {
            self.singleScene = singleScene
            self.announcesReady = announcesReady
        }

        /// - Throws: `KeyError.wrongType` for a value that is not a boolean.
        public init(_ options: [String: Variant]) throws(KeyError) {
            singleScene = try options.value(Keys.singleScene) ?? false
            announcesReady = try options.value(Keys.announcesReady) ?? false
        }

        public var variants: [String: Variant] {
            var options: [String: Variant] = [:]
            options.insert(Keys.singleScene, singleScene)
            options.insert(Keys.announcesReady, announcesReady)
            return options
        }
    }

    /// One scene declaration as `DeclareScenes` and `Status` carry it: `(id, properties)`, `(sa{sv})`.
    public struct Declaration: Sendable, Hashable {
        public var id: String
        public var kind: Kind
        /// The `handlesExternalEvents(matching:)` set: nil without the modifier, empty for a
        /// modifier that never matches.
        public var matching: [String]?
        /// The MIME types of a document group; a window group sends none.
        public var contentTypes: [String]

        public init(id: String, kind: Kind, matching: [String]? = nil, contentTypes: [String] = []) {
            (self.id, self.kind, self.matching, self.contentTypes) = (id, kind, matching, contentTypes)
        }

        /// - Throws: `KeyError` for a missing or unknown `kind`, or a value of the wrong type.
        public init(_ structure: Structure<String, [String: Variant]>) throws(KeyError) {
            let (id, properties) = structure.fields
            let kind = try properties.required(Keys.kind)
            guard let known = Kind(rawValue: kind) else {
                throw .unexpectedValue(key: Keys.kind.name, value: kind, allowed: Kind.allCases.map(\.rawValue))
            }
            self.init(
                id: id, kind: known, matching: try properties.value(Keys.matching),
                contentTypes: known == .documentGroup ? try properties.value(Keys.contentTypes) ?? [] : [])
        }

        public var structure: Structure<String, [String: Variant]> {
            var properties: [String: Variant] = [:]
            properties.insert(Keys.kind, kind.rawValue)
            properties.insert(Keys.matching, matching)
            if kind == .documentGroup { properties.insert(Keys.contentTypes, contentTypes) }
            return Structure((id, properties))
        }
    }

    /// One `handlesExternalEvents(preferring:allowing:)` modifier, `(asas)`, as `SetExternalEvents`
    /// and `Status` carry it.
    public struct Modifier: Sendable, Hashable {
        public var preferring: [String]
        public var allowing: [String]

        public init(preferring: [String], allowing: [String]) {
            self.preferring = preferring
            self.allowing = allowing
        }

        public init(_ structure: Structure<[String], [String]>) {
            (preferring, allowing) = structure.fields
        }

        public var structure: Structure<[String], [String]> { Structure((preferring, allowing)) }
    }
}
