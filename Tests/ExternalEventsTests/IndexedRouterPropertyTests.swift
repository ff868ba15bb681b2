import ExternalEvents
import Foundation
import Testing

/// The rules written as plainly as possible: linear scans, and matching as Foundation's folding of
/// both strings followed by a literal search. The indexed router must decide exactly as this does.
struct ReferenceRouter {
    var declarations: [SceneDeclaration]
    var multiple: Bool
    /// Search order, first searched first.
    var scenes: [OpenScene]
    var contentTypes = ExtensionContentTypes()

    static func fold(_ string: String) -> String {
        string.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
    }

    static func matches(_ set: ConditionSet, _ event: ExternalEvent) -> Bool {
        let text = fold(event.matchedString ?? "")
        return set.conditions.contains { condition in
            condition == "*" || (!condition.isEmpty && text.range(of: fold(condition), options: .literal) != nil)
        }
    }

    func route(_ event: ExternalEvent) -> (Decision.Action, Decision.Rule) {
        if !multiple, let first = scenes.first { return (.deliver(scene: first.id), .singleScene) }
        for scene in scenes where Self.matches(EventPreference.union(scene.modifiers).preferring, event) {
            return (.deliver(scene: scene.id), .preferring)
        }
        for scene in scenes where Self.matches(EventPreference.union(scene.modifiers).allowing, event) {
            return (.deliver(scene: scene.id), .allowing)
        }
        for declaration in declarations {
            switch declaration.kind {
            case .windowGroup(let matching?) where Self.matches(matching, event):
                return (.create(declaration: declaration.id), .matching)
            case .documentGroup(let types, _):
                if let url = event.documentURL, let type = contentTypes.contentType(ofFileURL: url),
                    types.contains(where: { contentTypes.contentType(type, conformsTo: $0) })
                {
                    return (.create(declaration: declaration.id), .documentType)
                }
            default: continue
            }
        }
        for declaration in declarations {
            if case .windowGroup(nil) = declaration.kind { return (.create(declaration: declaration.id), .default) }
        }
        return (.unhandled, .none)
    }
}

@Suite("The indexed router decides as the reference does")
struct IndexedRouterPropertyTests {
    /// Characters chosen to collide: cases, precomposed and combining accents, a "*" and separators.
    static let alphabet = ["a", "b", "c", "A", "B", "é", "É", "e", "E", "e\u{301}", "/", "=", "*", "ß", "s"]

    struct Scenario {
        var generator: SeededGenerator

        mutating func string(_ lengths: ClosedRange<Int>) -> String {
            (0..<Int.random(in: lengths, using: &generator)).map { _ in
                IndexedRouterPropertyTests.alphabet.randomElement(using: &generator)!
            }.joined()
        }

        mutating func conditions() -> ConditionSet {
            ConditionSet((0..<Int.random(in: 0...3, using: &generator)).map { _ in
                switch Int.random(in: 0..<20, using: &generator) {
                case 0: "*"
                case 1: ""
                default: string(1...3)
                }
            })
        }

        mutating func modifiers() -> [EventPreference] {
            (0..<Int.random(in: 0...2, using: &generator)).map { _ in
                EventPreference(preferring: conditions(), allowing: conditions())
            }
        }

        mutating func event() -> ExternalEvent {
            switch Int.random(in: 0..<10, using: &generator) {
            case 0: .activity(UserActivity(type: "t", webpageURL: Bool.random(using: &generator) ? "file:///" + string(0...4) + ".md" : nil))
            case 1: .activity(UserActivity(type: "t", targetContentIdentifier: string(0...8)))
            case 2: .url("file:///" + string(0...6) + [".md", ".png", ".txt"].randomElement(using: &generator)!)
            default: .url(string(0...14))
            }
        }

        mutating func declarations() -> [SceneDeclaration] {
            (0..<Int.random(in: 1...4, using: &generator)).map { n in
                switch Int.random(in: 0..<4, using: &generator) {
                case 0: .windowGroup("d\(n)")
                case 1: .documentGroup("d\(n)", contentTypes: [["text/plain"], ["image/png"], []].randomElement(using: &generator)!)
                default: .windowGroup("d\(n)", matching: conditions())
                }
            }
        }
    }

    @Test("random scenes, changes and events", arguments: 0..<40)
    func randomScenarios(seed: UInt64) throws {
        var random = Scenario(generator: SeededGenerator(state: seed))
        let declarations = random.declarations()
        let multiple = Int.random(in: 0..<8, using: &random.generator) != 0
        var reference = ReferenceRouter(declarations: declarations, multiple: multiple, scenes: [])
        var app = try SceneRouter(
            declarations: declarations, supportsMultipleScenes: multiple, contentTypes: ExtensionContentTypes())
        var nextID = 0
        for step in 0..<300 {
            // Grow to ~80 scenes so that the small automaton merges and tombstones pile up.
            let op = reference.scenes.isEmpty ? 0 : Int.random(in: 0..<10, using: &random.generator)
            switch op {
            case 0...3 where reference.scenes.count < 80:
                let scene = OpenScene(
                    id: "s\(nextID)", declaration: declarations.randomElement(using: &random.generator)!.id,
                    modifiers: random.modifiers())
                nextID += 1
                try app.addScene(scene.id, declaration: scene.declaration, modifiers: scene.modifiers)
                reference.scenes.insert(scene, at: 0)
            case 4, 5:
                let at = Int.random(in: 0..<reference.scenes.count, using: &random.generator)
                try app.removeScene(reference.scenes.remove(at: at).id)
            case 6:
                let at = Int.random(in: 0..<reference.scenes.count, using: &random.generator)
                let scene = reference.scenes.remove(at: at)
                reference.scenes.insert(scene, at: 0)
                try app.activateScene(scene.id)
            default:
                let at = Int.random(in: 0..<reference.scenes.count, using: &random.generator)
                reference.scenes[at].modifiers = random.modifiers()
                try app.setModifiers(reference.scenes[at].modifiers, ofScene: reference.scenes[at].id)
            }
            #expect(app.openScenes == reference.scenes, "seed \(seed) step \(step)")
            for _ in 0..<5 {
                let event = random.event()
                let decision = app.route(event)
                let expected = reference.route(event)
                #expect(decision.action == expected.0 && decision.rule == expected.1, "seed \(seed) step \(step): \(event)")
                if let condition = decision.condition, decision.rule != .singleScene {
                    #expect(ReferenceRouter.matches([condition], event), "reported condition \(condition) must match")
                }
            }
        }
    }

    @Test("matching agrees with Foundation's folding, on ASCII (folded without it) and other text", arguments: 0..<20)
    func foldingAgrees(seed: UInt64) {
        var random = Scenario(generator: SeededGenerator(state: seed &+ 1000))
        for _ in 0..<200 {
            let condition = random.string(1...3), text = random.string(0...10)
            let expected = ReferenceRouter.matches([condition], .url(text))
            #expect((ConditionSet([condition]).firstMatch(in: .url(text)) != nil) == expected, "\(condition) in \(text)")
        }
    }

    @Test("Foundation's search would not find \"se\" across the ß of \"Béßé\"; folded containment does")
    func foldedContainmentPolicy() {
        #expect("Béßé".range(of: "sÉ", options: [.caseInsensitive, .diacriticInsensitive]) == nil)
        #expect(ConditionSet(["sÉ"]).firstMatch(in: .url("Béßé")) == "sÉ")
    }
}

@Suite("The indexed router, merging off the serving thread, decides as the reference does")
struct DeferredMergePropertyTests {
    @Test("random scenes and changes; merges built late, in between changes, or thrown away", arguments: 0..<30)
    func randomScenarios(seed: UInt64) throws {
        var random = IndexedRouterPropertyTests.Scenario(generator: SeededGenerator(state: seed &+ 7000))
        let declarations = random.declarations()
        var reference = ReferenceRouter(declarations: declarations, multiple: true, scenes: [])
        var app = try SceneRouter(declarations: declarations, contentTypes: ExtensionContentTypes())
        app.defersMerges = true
        var out: [MergeJob] = []
        var merges = 0
        var nextID = 0
        for step in 0..<400 {
            let op = reference.scenes.isEmpty ? 0 : Int.random(in: 0..<10, using: &random.generator)
            switch op {
            case 0...3 where reference.scenes.count < 80:
                let scene = OpenScene(
                    id: "s\(nextID)", declaration: declarations.randomElement(using: &random.generator)!.id,
                    modifiers: random.modifiers())
                nextID += 1
                try app.addScene(scene.id, declaration: scene.declaration, modifiers: scene.modifiers)
                reference.scenes.insert(scene, at: 0)
            case 4, 5:
                let at = Int.random(in: 0..<reference.scenes.count, using: &random.generator)
                try app.removeScene(reference.scenes.remove(at: at).id)
            default:
                let at = Int.random(in: 0..<reference.scenes.count, using: &random.generator)
                reference.scenes[at].modifiers = random.modifiers()
                try app.setModifiers(reference.scenes[at].modifiers, ofScene: reference.scenes[at].id)
            }
            if let job = app.takeMergeJob() { out.append(job) }
            // A merge comes back some changes later (or, once in a while, a stale one comes back twice).
            if !out.isEmpty, Int.random(in: 0..<4, using: &random.generator) == 0 {
                let merged = out.removeFirst().build()
                if app.finishMerge(merged) { merges += 1 }
                let again = app.finishMerge(merged)
                #expect(!again, "a merge is installed once")
            }
            for _ in 0..<5 {
                let event = random.event()
                let decision = app.route(event)
                let expected = reference.route(event)
                #expect(decision.action == expected.0 && decision.rule == expected.1, "seed \(seed) step \(step): \(event)")
            }
        }
        #expect(merges > 0, "seed \(seed): no merge was ever due")
    }
}
