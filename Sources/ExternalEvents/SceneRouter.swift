// One file over 300 lines: the router's state and the rules that read it; splitting them would
// hide which state each rule depends on.
/// An app's scenes, kept live, and the rules that route an external event to one of them.
///
/// Holds the declarations (in declaration order) and the open scenes in search order: the most
/// recently added or activated first. `route(_:)` applies Apple's documented rules; it folds the
/// event once and looks conditions up in an index, so its cost does not grow with the number of
/// open scenes. Changing one scene costs about its own conditions plus a small, amortized rebuild.
public struct SceneRouter: Sendable {
    public let declarations: [SceneDeclaration]
    /// False for an app that supports only a single scene: its open scene gets every event.
    public let supportsMultipleScenes: Bool
    private let contentTypes: (any ContentTypeResolving)?
    private let declarationIndex: [String: Int]
    /// Each window group's `matching` set folded, by declaration position; nil without the modifier.
    private let matchingSets: [FoldedConditions?]

    private struct Slot: Sendable {
        var id: String
        var declaration: Int
        /// The modifiers as given; the index holds their conditions, folded, under this slot
        /// (`holdings(of:in:)` derives them again when the scene changes).
        var modifiers: [EventPreference]
        var prefersAnything = false
        var allowsAnything = false
    }

    private var slots: [Slot?] = []
    /// Activation stamp per slot, 0 when the slot is free; larger is more recent.
    private var stamps: [UInt64] = []
    private var freeSlots: [Int32] = []
    private var slotOfScene: [String: Int32] = [:]
    private var clock: UInt64 = 0
    private var index = ConditionIndex()
    private var recency = RecencyHeap()
    private var preferringAnything = RecencyHeap()
    private var allowingAnything = RecencyHeap()

    /// An app with these declarations and open scenes.
    /// - Parameters:
    ///   - declarations: the app's scenes, in declaration order.
    ///   - openScenes: open scenes in search order, first searched first.
    ///   - supportsMultipleScenes: false for a single-scene app.
    ///   - contentTypes: tells file types for document groups; without it no document group matches.
    /// - Throws: `RoutingError` for a duplicate id or a scene of an unknown declaration.
    public init(
        declarations: [SceneDeclaration], openScenes: [OpenScene] = [],
        supportsMultipleScenes: Bool = true, contentTypes: (any ContentTypeResolving)? = nil
    ) throws(RoutingError) {
        var declarationIndex: [String: Int] = [:]
        for (position, declaration) in declarations.enumerated() {
            guard declarationIndex.updateValue(position, forKey: declaration.id) == nil else {
                throw .duplicateDeclaration(declaration.id)
            }
        }
        self.declarations = declarations
        self.declarationIndex = declarationIndex
        self.matchingSets = declarations.map { declaration in
            guard case .windowGroup(let matching?) = declaration.kind else { return nil }
            return FoldedConditions(matching)
        }
        self.supportsMultipleScenes = supportsMultipleScenes
        self.contentTypes = contentTypes
        var seen = Set<String>()
        for scene in openScenes where !seen.insert(scene.id).inserted { throw .duplicateScene(scene.id) }
        for scene in openScenes.reversed() {
            try addScene(scene.id, declaration: scene.declaration, modifiers: scene.modifiers)
        }
    }

    // MARK: Keeping the scenes live

    /// Opens a scene, first in search order.
    /// - Throws: `RoutingError.duplicateScene` or `.unknownDeclaration`.
    public mutating func addScene(
        _ id: String, declaration: String, modifiers: [EventPreference] = []
    ) throws(RoutingError) {
        guard slotOfScene[id] == nil else { throw .duplicateScene(id) }
        guard let position = declarationIndex[declaration] else {
            throw .unknownDeclaration(declaration, scene: id)
        }
        let slot: Int32
        if let free = freeSlots.popLast() {
            slot = free
        } else {
            slot = Int32(slots.count)
            slots.append(nil)
            stamps.append(0)
        }
        slots[Int(slot)] = Slot(id: id, declaration: position, modifiers: [])
        slotOfScene[id] = slot
        clock += 1
        stamps[Int(slot)] = clock
        recency.push(stamp: clock, slot: slot)
        register(modifiers, in: slot)
        index.commit()
        settle()
    }

    /// Closes a scene.
    /// - Throws: `RoutingError.unknownScene`.
    public mutating func removeScene(_ id: String) throws(RoutingError) {
        guard let slot = slotOfScene.removeValue(forKey: id) else { throw .unknownScene(id) }
        unregister(slot)
        index.commit()
        slots[Int(slot)] = nil
        stamps[Int(slot)] = 0
        freeSlots.append(slot)
        settle()
    }

    /// Marks a scene as the most recently active: it moves to the front of the search order.
    /// - Throws: `RoutingError.unknownScene`.
    public mutating func activateScene(_ id: String) throws(RoutingError) {
        guard let slot = slotOfScene[id] else { throw .unknownScene(id) }
        clock += 1
        stamps[Int(slot)] = clock
        recency.push(stamp: clock, slot: slot)
        if slots[Int(slot)]!.prefersAnything { preferringAnything.push(stamp: clock, slot: slot) }
        if slots[Int(slot)]!.allowsAnything { allowingAnything.push(stamp: clock, slot: slot) }
        settle()
    }

    /// Replaces the `handlesExternalEvents(preferring:allowing:)` modifiers a scene carries.
    /// Its place in the search order does not change.
    /// - Throws: `RoutingError.unknownScene`.
    public mutating func setModifiers(_ modifiers: [EventPreference], ofScene id: String) throws(RoutingError) {
        guard let slot = slotOfScene[id] else { throw .unknownScene(id) }
        unregister(slot)
        register(modifiers, in: slot)
        index.commit()
        settle()
    }

    /// The open scenes in search order.
    public var openScenes: [OpenScene] {
        slots.indices.filter { slots[$0] != nil }.sorted { stamps[$0] > stamps[$1] }.map {
            let slot = slots[$0]!
            return OpenScene(id: slot.id, declaration: declarations[slot.declaration].id, modifiers: slot.modifiers)
        }
    }

    public var openSceneCount: Int { slotOfScene.count }

    /// The most scenes it held at once (its tables keep that size): a router far below it is worth
    /// building again from its open scenes, to give the memory back.
    public var capacity: Int { slots.count }

    /// Whether the index's merges are handed out (`takeMergeJob`) to be built elsewhere, instead of
    /// done inline by the change that makes one due: a server sets it so that no change stalls it.
    public var defersMerges: Bool {
        get { index.defersMerges }
        set { index.defersMerges = newValue }
    }

    /// A due merge of the condition index, to `build()` anywhere and hand back to `finishMerge(_:)`;
    /// nil when none is due or one is already out. Routing stays exact meanwhile.
    public mutating func takeMergeJob() -> MergeJob? { index.beginMerge() }

    /// Installs a merge `takeMergeJob()` handed out; a stale one is ignored.
    /// - Returns: whether it was installed.
    @discardableResult
    public mutating func finishMerge(_ merged: MergedIndex) -> Bool { index.finishMerge(merged) }

    /// With `defersMerges`: makes a merge due when conditions added since the last one are searched
    /// one by one (fewer than a level's 64), for when the app's sets have been quiet a while.
    public mutating func mergeLevelsSearchedOneByOne() { index.mergeLevelsSearchedOneByOne() }

    /// What the index holds for a scene: its united sets' conditions, folded, each held as its
    /// original's position in the set, so that a decision names it without any copy kept here.
    /// Derived again when the scene changes rather than stored beside every open scene.
    private static func holdings(
        of modifiers: [EventPreference], in slot: Int32
    ) -> [(text: FoldedText, holder: ConditionIndex.Holder)] {
        let united = EventPreference.union(modifiers)
        var holdings: [(text: FoldedText, holder: ConditionIndex.Holder)] = []
        for (set, preferring) in [(united.preferring, true), (united.allowing, false)] {
            for condition in FoldedConditions(set).conditions {
                holdings.append((condition.text, .init(slot: slot, position: condition.position, preferring: preferring)))
            }
        }
        return holdings
    }

    private mutating func register(_ modifiers: [EventPreference], in slot: Int32) {
        for (text, holder) in Self.holdings(of: modifiers, in: slot) { index.insert(text, by: holder) }
        let united = EventPreference.union(modifiers)
        let stamp = stamps[Int(slot)]
        if united.preferring.matchesEverything { preferringAnything.push(stamp: stamp, slot: slot) }
        if united.allowing.matchesEverything { allowingAnything.push(stamp: stamp, slot: slot) }
        slots[Int(slot)]!.modifiers = modifiers
        slots[Int(slot)]!.prefersAnything = united.preferring.matchesEverything
        slots[Int(slot)]!.allowsAnything = united.allowing.matchesEverything
    }

    private mutating func unregister(_ slot: Int32) {
        for (text, holder) in Self.holdings(of: slots[Int(slot)]!.modifiers, in: slot) { index.remove(text, by: holder) }
        slots[Int(slot)]!.modifiers = []
        slots[Int(slot)]!.prefersAnything = false
        slots[Int(slot)]!.allowsAnything = false
    }

    private mutating func settle() {
        let live = slotOfScene.count
        recency.settle(live: live) { [stamps] in stamps[Int($0.slot)] == $0.stamp }
        preferringAnything.settle(live: live) { [stamps, slots] in
            stamps[Int($0.slot)] == $0.stamp && slots[Int($0.slot)]!.prefersAnything
        }
        allowingAnything.settle(live: live) { [stamps, slots] in
            stamps[Int($0.slot)] == $0.stamp && slots[Int($0.slot)]!.allowsAnything
        }
    }

    // MARK: Routing

    /// Decides where `event` goes, applying the rules in order: single scene, preferring, allowing,
    /// matching or document type, default; else unhandled.
    public func route(_ event: ExternalEvent) -> Decision {
        let open = slotOfScene.count
        if !supportsMultipleScenes, let front = recency.top {
            return decision(.deliver(scene: slots[Int(front.slot)]!.id), .singleScene, .onlyScene(scene: slots[Int(front.slot)]!.id))
        }
        let text = FoldedText(event.matchedString ?? "")
        if open > 0 {
            var preferred = (stamp: UInt64(0), slot: Int32(-1), position: Int32(-1))
            var allowed = preferred
            index.forEachHolder(in: text) { holder in
                let stamp = stamps[Int(holder.slot)]
                if holder.preferring {
                    if stamp > preferred.stamp { preferred = (stamp, holder.slot, holder.position) }
                } else if stamp > allowed.stamp {
                    allowed = (stamp, holder.slot, holder.position)
                }
            }
            if let any = preferringAnything.top, any.stamp > preferred.stamp {
                preferred = (any.stamp, any.slot, -1)
            }
            if preferred.slot >= 0 {
                let (scene, condition) = described(preferred.slot, preferred.position, preferring: true)
                return decision(.deliver(scene: scene), .preferring, .preferred(scene: scene, condition: condition))
            }
            if let any = allowingAnything.top, any.stamp > allowed.stamp {
                allowed = (any.stamp, any.slot, -1)
            }
            if allowed.slot >= 0 {
                let (scene, condition) = described(allowed.slot, allowed.position, preferring: false)
                return decision(.deliver(scene: scene), .allowing, .allowed(scene: scene, condition: condition))
            }
        }
        return newScene(for: event, text: text)
    }

    /// Rules 3 to 5: which declaration gets a new scene, if any.
    private func newScene(for event: ExternalEvent, text: FoldedText) -> Decision {
        var fileType: String?? = .none
        for (position, declaration) in declarations.enumerated() {
            switch declaration.kind {
            case .windowGroup(.some):
                if let condition = matchingSets[position]?.firstMatch(in: text) {
                    return decision(
                        .create(declaration: declaration.id), .matching,
                        .matched(declaration: declaration.id, condition: condition))
                }
            case .windowGroup(nil):
                continue
            case .documentGroup(let supported, _):
                if fileType == nil {
                    fileType = event.documentURL.flatMap { contentTypes?.contentType(ofFileURL: $0) }
                }
                guard let contentTypes, let type = fileType ?? nil else { continue }
                if let match = supported.first(where: { contentTypes.contentType(type, conformsTo: $0) }) {
                    return decision(
                        .create(declaration: declaration.id), .documentType,
                        .documentType(declaration: declaration.id, fileType: type, supported: match),
                        fileType: type)
                }
            }
        }
        let file = fileType ?? nil
        for declaration in declarations {
            if case .windowGroup(nil) = declaration.kind {
                return decision(
                    .create(declaration: declaration.id), .default,
                    .firstWithoutMatching(declaration: declaration.id), fileType: file)
            }
        }
        return decision(.unhandled, .none, .nothing, fileType: file)
    }

    /// The scene, and its condition as given at `position` in its united preferring or allowing
    /// set (-1 for `*`).
    private func described(_ slot: Int32, _ position: Int32, preferring: Bool) -> (scene: String, condition: String) {
        let scene = slots[Int(slot)]!
        guard position >= 0 else { return (scene.id, "*") }
        let united = EventPreference.union(scene.modifiers)
        return (scene.id, (preferring ? united.preferring : united.allowing).conditions[Int(position)])
    }

    private func decision(
        _ action: Decision.Action, _ rule: Decision.Rule, _ because: Decision.Because, fileType: String? = nil
    ) -> Decision {
        Decision(
            action: action, rule: rule, because: because, openScenes: slotOfScene.count,
            singleSceneApp: !supportsMultipleScenes, fileType: fileType)
    }
}
