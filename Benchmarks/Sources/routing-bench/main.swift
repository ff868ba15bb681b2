// Routing cost against the number of open scenes: decisions for preferring hits, allowing hits and
// misses (falling to a matching declaration or the default), and the cost of one scene change.
// Plain release-mode harness: medians over repeated batches, since the machine is noisy.
import CMallocInfo
import ExternalEvents

var random = SplitMix(state: 0x5EED)

struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

@MainActor func hex(_ count: Int) -> String {
    String((0..<count).map { _ in "0123456789abcdef".randomElement(using: &random)! })
}

@MainActor func word(_ count: Int) -> String {
    String((0..<count).map { _ in "abcdefghijklmnopqrstuvwxyz".randomElement(using: &random)! })
}

/// Four conditions: two preferred (a document and a selection), two allowed (a folder and a tag).
@MainActor func modifiers() -> [EventPreference] {
    [EventPreference(preferring: ["doc=\(hex(16))", "sel-\(hex(10))"], allowing: ["folder/\(hex(10))/", "tag:\(hex(8))"])]
}

/// A URL of 60 to 200 characters with `inner` somewhere in its path or query.
@MainActor func url(containing inner: String) -> String {
    var url = "https://\(word(6)).example.com/\(word(5))/\(word(8))/\(inner)?ref=\(word(10))"
    let target = Int.random(in: 60...200, using: &random)
    while url.count < target {
        let remaining = target - url.count
        url += remaining < 9 ? word(remaining) : "&\(word(4))=\(word(min(remaining - 6, Int.random(in: 3...12, using: &random))))"
    }
    return url
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted[sorted.count / 2]
}

func nanoseconds(_ duration: Duration) -> Double {
    duration / .nanoseconds(1)
}

struct Row {
    var scenes: Int
    var preferring, allowing, matching, byDefault: Double
    var addMedian, addMean, changeMedian, changeMean: Double
}

@MainActor func measure(scenes count: Int) throws -> Row {
    let declarations: [SceneDeclaration] = [.windowGroup("main"), .windowGroup("detail", matching: ["detailIdentifier="])]
    var app = try SceneRouter(declarations: declarations)
    var sets: [[EventPreference]] = []
    for n in 0..<count {
        let m = modifiers()
        sets.append(m)
        try app.addScene("scene-\(n)", declaration: "main", modifiers: m)
    }

    // 512 events of each kind, each checked once to decide as its kind says.
    func events(_ make: () -> String) -> [ExternalEvent] { (0..<512).map { _ in .url(make()) } }
    let kinds: [(Decision.Rule, [ExternalEvent])] = [
        (.preferring, events { url(containing: sets.randomElement(using: &random)![0].preferring.conditions.randomElement(using: &random)!) }),
        (.allowing, events { url(containing: sets.randomElement(using: &random)![0].allowing.conditions.randomElement(using: &random)!) }),
        (.matching, events { url(containing: "detailIdentifier=\(hex(6))") }),
        (.default, events { url(containing: word(12)) }),
    ]
    var perDecision: [Double] = []
    var checksum = 0
    for (rule, list) in kinds {
        for event in list where app.route(event).rule != rule { fatalError("benchmark event not a \(rule) case: \(event)") }
        var batches: [Double] = []
        for _ in 0..<25 {
            let start = ContinuousClock.now
            for _ in 0..<4 { for event in list { checksum &+= app.route(event).rule.hashValue } }
            batches.append(nanoseconds(ContinuousClock.now - start) / Double(4 * list.count))
        }
        perDecision.append(median(batches))
    }

    // One change at a time: add then remove a scene (the add is timed), and replace one scene's sets.
    var adds: [Double] = [], changes: [Double] = []
    for n in 0..<2000 {
        let m = modifiers()
        let start = ContinuousClock.now
        try app.addScene("extra-\(n)", declaration: "main", modifiers: m)
        adds.append(nanoseconds(ContinuousClock.now - start))
        try app.removeScene("extra-\(n)")
        let victim = "scene-\(Int.random(in: 0..<count, using: &random))"
        let fresh = modifiers()
        let changeStart = ContinuousClock.now
        try app.setModifiers(fresh, ofScene: victim)
        changes.append(nanoseconds(ContinuousClock.now - changeStart))
    }
    if checksum == 42 { print("") }  // keeps the routing loops alive
    return Row(
        scenes: count, preferring: perDecision[0], allowing: perDecision[1], matching: perDecision[2],
        byDefault: perDecision[3], addMedian: median(adds), addMean: adds.reduce(0, +) / Double(adds.count),
        changeMedian: median(changes), changeMean: changes.reduce(0, +) / Double(changes.count))
}

func cell(_ value: Double, _ width: Int = 10) -> String {
    let text = value >= 10_000 ? "\(Int(value / 1000)) µs" : value >= 1000 ? "\(Double(Int(value / 100)) / 10) µs" : "\(Int(value)) ns"
    return String(repeating: " ", count: max(0, width - text.count)) + text
}

print("routing-bench: 4 conditions per open scene, URLs of 60-200 characters; medians of 25 batches")
print("ns per decision by outcome; one scene change timed 2,000 times (median / mean, merges included)\n")
print("  scenes  preferring  allowing  matching   default  decisions/s   add median  add mean  change median  change mean")
var rows: [Row] = []
for count in [10, 100, 1_000, 10_000] {
    let row = try measure(scenes: count)
    rows.append(row)
    let all = [row.preferring, row.allowing, row.matching, row.byDefault]
    let rate = 1e9 / median(all)
    print(
        String(repeating: " ", count: 8 - "\(count)".count) + "\(count)" + cell(row.preferring, 12) + cell(row.allowing)
            + cell(row.matching) + cell(row.byDefault) + String(repeating: " ", count: 13 - "\(Int(rate))".count) + "\(Int(rate))"
            + cell(row.addMedian, 13) + cell(row.addMean) + cell(row.changeMedian, 15) + cell(row.changeMean, 13))
}
let first = rows.first!, last = rows.last!
print("\nscaling 10 → 10,000 scenes: preferring ×\((last.preferring / first.preferring * 100).rounded() / 100), "
    + "default ×\((last.byDefault / first.byDefault * 100).rounded() / 100) (a linear scan would be ×1000)")

/// Heap a router holds per open scene: glibc's bytes in use (heap and mapped) before and after opening them.
@MainActor func heapPerScene(_ count: Int, _ modifiers: (Int) -> [EventPreference]) throws -> Double {
    func inUse() -> Int { let info = mallinfo2(); return Int(info.uordblks + info.hblkhd) }
    let before = inUse()
    var app = try SceneRouter(declarations: [.windowGroup("main")])
    for n in 0..<count { try app.addScene("scene-\(n)", declaration: "main", modifiers: modifiers(n)) }
    let after = inUse()
    withExtendedLifetime(app) {}
    return Double(after - before) / Double(count)
}
print("heap held per open scene (4 conditions): \(Int(try heapPerScene(10_000) { _ in modifiers() })) bytes at 10,000 scenes")
// The scenes dispatch-bench registers: four short preferring conditions each.
let short = try heapPerScene(10_000) { n in
    [EventPreference(preferring: ConditionSet((0..<4).map { "item-\(n)-\($0)&" }))]
}
print("heap held per open scene (dispatch-bench's 4 short conditions): \(Int(short)) bytes at 10,000 scenes")
