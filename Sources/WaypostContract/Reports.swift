public import DBus
public import ExternalEvents

// What the dispatcher reports: where an event went (Open, ContinueActivity, Explain, Routed) and
// who is live (Status).

extension Contract {
    /// `outcome`: where an event went. `Open` and `ContinueActivity` send where and by which rule,
    /// `Explain` adds the reason and every step of the plan, and `Routed` the reason, the time
    /// taken, or the error when it failed (each member's keys are the XML's).
    ///
    /// `action` (`Action`): `deliver`, to an open scene; `create`, a new scene of a running process;
    /// `launch`, the app was started and the event routed once it declared its scenes; `fallback`, an
    /// app outside Waypost got it. `rule` (`Rule`, the routing core's `OutcomeRule`, which the plan's
    /// rules are too): the routing core's rule for a participating app, or how the dispatcher chose
    /// an app outside them.
    public struct RoutingOutcome: Sendable, Hashable {
        public var action: Action?
        public var appID: String?
        public var sceneID: String?
        public var declarationID: String?
        public var rule: Rule?
        /// Why, for people.
        public var reason: String?
        /// The error, when the event was not delivered.
        public var error: Failure?
        /// Microseconds from receiving the request to the app's acknowledgement.
        public var micros: UInt64?
        /// Who opened the event: an app id, "via portal", "process NAME" when no app matched, or
        /// "unknown" (the caller exited, its pid was reused, another user's process).
        public var opener: String?
        /// `Routed`: whether the event carried a token its window can come to the front with (an
        /// activation token or a startup id; without one, a Wayland compositor leaves the window
        /// where it is); nil elsewhere.
        public var token: Bool?
        /// `Explain`'s plan, step by step, each tried after the one before it refused (the first is
        /// this outcome's destination); nil elsewhere.
        public var steps: [RoutingOutcome]?

        public init(
            action: Action? = nil, appID: String? = nil, sceneID: String? = nil, declarationID: String? = nil,
            rule: Rule? = nil, reason: String? = nil, error: Failure? = nil, micros: UInt64? = nil, opener: String? = nil,
            token: Bool? = nil, steps: [RoutingOutcome]? = nil
        ) {
            (self.action, self.appID, self.sceneID, self.declarationID) = (action, appID, sceneID, declarationID)
            (self.rule, self.reason, self.error, self.micros, self.opener) = (rule, reason, error, micros, opener)
            (self.token, self.steps) = (token, steps)
        }

        /// - Throws: `KeyError` for a value of the wrong type, or an action, rule or error outside the contract.
        public init(_ outcome: [String: Variant]) throws(KeyError) {
            if let action = try outcome.value(Keys.action) {
                guard let known = Action(rawValue: action) else {
                    throw .unexpectedValue(key: Keys.action.name, value: action, allowed: Action.allCases.map(\.rawValue))
                }
                self.action = known
            }
            appID = try outcome.value(Keys.appID)
            sceneID = try outcome.value(Keys.sceneID)
            declarationID = try outcome.value(Keys.declarationID)
            if let rule = try outcome.value(Keys.rule) {
                guard let known = Rule(rawValue: rule) else {
                    throw .unexpectedValue(key: Keys.rule.name, value: rule, allowed: Rule.allCases.map(\.rawValue))
                }
                self.rule = known
            }
            reason = try outcome.value(Keys.reason)
            if let error = try outcome.value(Keys.error) {
                guard let name = try? ErrorName(error), let known = Failure(name) else {
                    throw .unexpectedValue(key: Keys.error.name, value: error, allowed: Failure.allCases.map(\.errorName.rawValue))
                }
                self.error = known
            }
            micros = try outcome.value(Keys.micros)
            opener = try outcome.value(Keys.opener)
            token = try outcome.value(Keys.token)
            // A step holds no steps of its own: one level is read, deeper ones are refused.
            steps = try outcome.value(Keys.steps)?.map { step throws(KeyError) in
                guard step[Keys.steps.name] == nil else {
                    throw .unexpectedValue(key: Keys.steps.name, value: "steps within a step", allowed: ["steps without steps of their own"])
                }
                return try RoutingOutcome(step)
            }
        }

        public var variants: [String: Variant] { properties.dictionary }

        /// The outcome as it travels, its keys in the contract's order (`Open` answers this for
        /// every link: no dictionary is built for it).
        public var properties: PropertyList {
            var outcome = PropertyList(capacity: 6)
            outcome.insert(Keys.action, action?.rawValue)
            outcome.insert(Keys.appID, appID)
            outcome.insert(Keys.sceneID, sceneID)
            outcome.insert(Keys.declarationID, declarationID)
            outcome.insert(Keys.rule, rule?.rawValue)
            outcome.insert(Keys.reason, reason)
            outcome.insert(Keys.error, error?.errorName.rawValue)
            outcome.insert(Keys.micros, micros)
            outcome.insert(Keys.opener, opener)
            outcome.insert(Keys.token, token)
            outcome.insert(Keys.steps, steps?.map(\.variants))
            return outcome
        }
    }

    /// One of `Status`'s `processes`: a live process of a participating app.
    public struct ProcessStatus: Sendable, Hashable {
        public var appID: String
        /// The process's unique bus name.
        public var owner: String
        public var pid: UInt32
        public var objectPath: ObjectPath
        public var singleScene: Bool
        /// Empty until the process has called `DeclareScenes`.
        public var declarations: [Declaration]

        public init(
            appID: String, owner: String, pid: UInt32, objectPath: ObjectPath, singleScene: Bool, declarations: [Declaration]
        ) {
            (self.appID, self.owner, self.pid, self.objectPath) = (appID, owner, pid, objectPath)
            (self.singleScene, self.declarations) = (singleScene, declarations)
        }

        /// - Throws: `KeyError` for a missing key or a value of the wrong type.
        public init(_ process: [String: Variant]) throws(KeyError) {
            appID = try process.required(Keys.appID)
            owner = try process.required(Keys.owner)
            pid = try process.required(Keys.pid)
            objectPath = try process.required(Keys.objectPath)
            singleScene = try process.required(Keys.singleScene)
            declarations = try process.required(Keys.declarations).map { structure throws(KeyError) in
                try Declaration(structure)
            }
        }

        public var variants: [String: Variant] {
            var process: [String: Variant] = [:]
            process.insert(Keys.appID, appID)
            process.insert(Keys.owner, owner)
            process.insert(Keys.pid, pid)
            process.insert(Keys.objectPath, objectPath)
            process.insert(Keys.singleScene, singleScene)
            process.insert(Keys.declarations, declarations.map(\.structure))
            return process
        }
    }

    /// One of `Status`'s `scenes`: an open scene, in search order within its app.
    public struct SceneStatus: Sendable, Hashable {
        public var appID: String
        public var sceneID: String
        public var declarationID: String
        /// The unique bus name of the process that added it.
        public var owner: String
        public var modifiers: [Modifier]

        public init(appID: String, sceneID: String, declarationID: String, owner: String, modifiers: [Modifier]) {
            (self.appID, self.sceneID, self.declarationID, self.owner, self.modifiers) =
                (appID, sceneID, declarationID, owner, modifiers)
        }

        /// - Throws: `KeyError` for a missing key or a value of the wrong type.
        public init(_ scene: [String: Variant]) throws(KeyError) {
            appID = try scene.required(Keys.appID)
            sceneID = try scene.required(Keys.sceneID)
            declarationID = try scene.required(Keys.declarationID)
            owner = try scene.required(Keys.owner)
            modifiers = try scene.required(Keys.modifiers).map(Modifier.init)
        }

        public var variants: [String: Variant] {
            var scene: [String: Variant] = [:]
            scene.insert(Keys.appID, appID)
            scene.insert(Keys.sceneID, sceneID)
            scene.insert(Keys.declarationID, declarationID)
            scene.insert(Keys.owner, owner)
            scene.insert(Keys.modifiers, modifiers.map(\.structure))
            return scene
        }
    }
}
