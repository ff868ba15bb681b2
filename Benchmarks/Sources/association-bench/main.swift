// The universal-link decision at 1,000 claimed domains of 50 components each, beside a yardstick
// measured in the same run: what routing one link costs the daemon today (a Dictionary lookup of
// the host, and SceneRouter.route over 10 open scenes, as routing-bench's smallest case); and the
// time to parse and compile 1,000 association files. Medians over repeated batches: the machine is noisy.
import Associations
import ExternalEvents
import Foundation

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

var random = SplitMix(state: 0xA55A)

@MainActor func word(_ count: Int) -> String {
    String((0..<count).map { _ in "abcdefghijklmnopqrstuvwxyz".randomElement(using: &random)! })
}

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

func nanoseconds(_ duration: Duration) -> Double {
    duration / .nanoseconds(1)
}

let domains = 1_000
let componentsPerFile = 50

/// One site's file: two details entries (the app, then its beta for what is left), 50 components
/// in the shapes real files use: excludes first, prefixes, one-or-more, query items, fragments,
/// substitution variables, a few case-insensitive, exact pages last.
struct Site {
    let domain: String
    let app: String
    let json: String
    /// Paths that the component of that index matches.
    var early = "", late = ""
}

@MainActor func makeSite(_ index: Int, components count: Int = componentsPerFile) -> Site {
    let domain = "shop\(index).example"
    let app = "org.example.App\(index)"
    var components: [String] = [
        ##"{"#": "no_universal_links", "exclude": true, "comment": "never a universal link"}"##,
        #"{"/": "/account/*", "exclude": true}"#,
    ]
    var site = Site(domain: domain, app: app, json: "")
    for k in 2..<count {
        let w = word(6)
        switch k {
        case 2:
            components.append(#"{"/": "/c2/\#(w)/*", "comment": "category pages"}"#)
            site.early = "/c2/\(w)/item/\(word(8))?ref=mail&utm_source=\(word(5))"
        case count - 1:
            components.append(#"{"/": "/about\#(k)"}"#)
            site.late = "/about\(k)"
        case _ where k >= count - 4:
            components.append(#"{"/": "/page\#(k)/\#(w)"}"#)
        default:
            switch k % 5 {
            case 0: components.append(#"{"/": "/c\#(k)/\#(w)/*"}"#)
            case 1: components.append(#"{"/": "/p\#(k)/\#(w)/?*", "caseSensitive": false}"#)
            case 2: components.append(#"{"/": "/h\#(k)/*", "?": {"article": "????", "lang": "$(lang)"}}"#)
            case 3: components.append(#"{"/": "/$(lang)/s\#(k)/\#(w)"}"#)
            default: components.append(##"{"/": "/o\##(k)/*", "#": "tab-?*"}"##)
            }
        }
    }
    let split = count * 3 / 5
    let first = components[..<split].joined(separator: ",\n      ")
    let second = components[split...].joined(separator: ",\n      ")
    let json = """
        {"applinks": {
          "defaults": {"percentEncoded": true},
          "details": [
            {"appIDs": ["\(app)"], "components": [
              \(first)]},
            {"appIDs": ["\(app).Beta"], "components": [
              \(second)]}]},
         "webcredentials": {"apps": ["\(app)"]}}
        """
    return Site(domain: site.domain, app: site.app, json: json, early: site.early, late: site.late)
}

let sites = (0..<domains).map { makeSite($0) }
let bytes = sites.map { Array($0.json.utf8) }
let averageBytes = bytes.map(\.count).reduce(0, +) / domains

/// Parses and compiles every file, 11 times: the median ms, and the files of the last round.
func load(_ sites: [Site], _ bytes: [[UInt8]]) throws -> (ms: Double, files: [String: AssociationFile]) {
    var loads: [Double] = []
    var files: [String: AssociationFile] = [:]
    for _ in 0..<11 {
        let start = ContinuousClock.now
        var loaded: [String: AssociationFile] = [:]
        loaded.reserveCapacity(sites.count)
        for (site, json) in zip(sites, bytes) { loaded[site.domain] = try AssociationFile(json: json) }
        loads.append(nanoseconds(ContinuousClock.now - start) / 1e6)
        files = loaded
    }
    return (median(loads), files)
}

let (loadMedian, files) = try load(sites, bytes)
// Sites of five components: the size of most sites' files.
let smallSites = (0..<domains).map { makeSite($0, components: 5) }
let smallBytes = smallSites.map { Array($0.json.utf8) }
let (smallLoadMedian, smallFiles) = try load(smallSites, smallBytes)
precondition(smallFiles.values.allSatisfy { !$0.appIDs.isEmpty }, "the five-component files lost their apps")

// Each app (and its beta) claims its domain and its subdomains.
var claims: [String: [DomainClaim]] = [:]
for site in sites {
    claims[site.app] = [try DomainClaim(site.domain), try DomainClaim("*." + site.domain)]
    claims[site.app + ".Beta"] = claims[site.app]
}
let ownership = LinkOwnership(userRules: [], associations: files, claims: claims)

// 512 links of each kind, each checked once to decide as its kind says.
@MainActor func links(_ make: (Site) -> String) -> [String] { (0..<512).map { _ in make(sites.randomElement(using: &random)!) } }
enum Expect { case app(component: Int), browser }
let kinds: [(name: String, expect: Expect, urls: [String])] = [
    ("owned, 3rd component", .app(component: 2), links { "https://\($0.domain)\($0.early)" }),
    ("owned, 50th component", .app(component: 19), links { "https://\($0.domain)\($0.late)" }),
    ("claimed, no component matches", .browser, links { "https://www.\($0.domain)/nothing/\(word(8))/here?q=\(word(6))#\(word(4))" }),
    ("unclaimed host", .browser, links { _ in "https://\(word(10)).example.org/product/\(word(6))" }),
]
for kind in kinds {
    for url in kind.urls {
        let decision = ownership.decide(url: url)
        switch (kind.expect, decision) {
        case (.app(let component), .app(_, let because)) where because.match.component == component: continue
        case (.browser, .browser): continue
        default: fatalError("benchmark link not a \(kind.name) case: \(url) → \(decision)")
        }
    }
}

// The yardstick: what routing a link costs the daemon today, a host lookup and SceneRouter.route
// with 10 open scenes of four conditions each (routing-bench's smallest case).
let hostTable = Dictionary(uniqueKeysWithValues: sites.enumerated().map { ($1.domain, $0) })
var router = try SceneRouter(declarations: [.windowGroup("main"), .windowGroup("detail", matching: ["detailIdentifier="])])
for n in 0..<10 {
    try router.addScene("scene-\(n)", declaration: "main", modifiers: [EventPreference(
        preferring: ["doc=\(word(16))", "sel-\(word(10))"], allowing: ["folder/\(word(10))/", "tag:\(word(8))"])])
}

var checksum = 0
func timed(_ body: () -> Void) -> Double {
    var batches: [Double] = []
    for _ in 0..<25 {
        let start = ContinuousClock.now
        for _ in 0..<4 { body() }
        batches.append(nanoseconds(ContinuousClock.now - start) / Double(4 * 512))
    }
    return median(batches)
}

print("association-bench: \(domains) domains × \(componentsPerFile) components (files of \(averageBytes) bytes on average)")
print("ns per decision: median of 25 batches of 4 × 512 links; the yardstick interleaved with each kind\n")
print("  link                            decide   parse+decide   yardstick   decide / yardstick")
var worst = 0.0
var worstYardstick = 0.0
for kind in kinds {
    let parsed = kind.urls.map { try! WebLink($0) }
    let events = kind.urls.map { ExternalEvent.url($0) }
    let hosts = parsed.map(\.host)
    var decide = 0.0, parseDecide = 0.0, yardstick = 0.0
    // Three interleaved rounds; each figure the median of its rounds.
    var rounds: [(Double, Double, Double)] = []
    for _ in 0..<3 {
        let d = timed { for link in parsed { if case .app = ownership.decide(link) { checksum &+= 1 } } }
        let p = timed { for url in kind.urls { if case .app = ownership.decide(url: url) { checksum &+= 1 } } }
        let y = timed {
            for (host, event) in zip(hosts, events) {
                checksum &+= hostTable[host] ?? 0
                checksum &+= router.route(event).rule.hashValue
            }
        }
        rounds.append((d, p, y))
    }
    decide = median(rounds.map(\.0))
    parseDecide = median(rounds.map(\.1))
    yardstick = median(rounds.map(\.2))
    worst = max(worst, decide)
    worstYardstick = max(worstYardstick, yardstick)
    func cell(_ value: Double) -> String { String(repeating: " ", count: max(0, 8 - "\(Int(value))".count)) + "\(Int(value)) ns" }
    let ratio = (decide / yardstick * 100).rounded() / 100
    print("  \(kind.name.padding(30))\(cell(decide))     \(cell(parseDecide))  \(cell(yardstick))        \(ratio)×")
}
print("\nslowest kind: \(Int(worst)) ns per decision (target ≤ 5,000 ns)")
func milliseconds(_ value: Double) -> String { "\((value * 10).rounded() / 10) ms" }
print("loading \(domains) files from bytes in memory (parse and compile), median of 11 (target ≤ 50 ms):")
print("  50 components each (\(averageBytes) bytes): \(milliseconds(loadMedian)), \(Int(loadMedian * 1000 / Double(domains))) µs per file")
let smallAverage = smallBytes.map(\.count).reduce(0, +) / domains
print("   5 components each (\(smallAverage) bytes): \(milliseconds(smallLoadMedian)), \(Int(smallLoadMedian * 1000 / Double(domains))) µs per file")

// What the daemon does at start (AssociationLoader): read each file, keep its bytes in a
// DeferredAssociation and build the table, which compiles every file before it is published (no
// link ever compiles). Measured: reading the 1,000 files back from a directory, then the table.
let directory = FileManager.default.temporaryDirectory.appendingPathComponent("association-bench-\(getpid())")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }
for (site, json) in zip(sites, bytes) { try Data(json).write(to: directory.appendingPathComponent("\(site.domain).json")) }
var starts: [Double] = []
for _ in 0..<11 {
    let start = ContinuousClock.now
    var deferred: [String: DeferredAssociation] = [:]
    for site in sites {
        let path = directory.appendingPathComponent("\(site.domain).json").path
        deferred[site.domain] = DeferredAssociation(bytes: Array(FileManager.default.contents(atPath: path)!), source: path)
    }
    let table = LinkOwnership(userRules: [], deferredAssociations: deferred, claims: claims)
    starts.append(nanoseconds(ContinuousClock.now - start) / 1e6)
    if case .app = table.decide(try WebLink(kinds[0].urls[0])) { checksum &+= 1 }
}
print("at daemon start (read \(domains) files of 50 components from a directory, each compiled, table built), median of 11: \(milliseconds(median(starts)))")

// The costliest file within the limits: a variable of 1,000 values referenced 16 times
// (maximumExpandedValues), against a link of 60,000 path bytes. Its decision stops at the step
// budget (AssociationFile.stepBudget); before the budget it took time linear in values ×
// references × path length. Beside it, the yardstick's cost for one link.
let hostileValues = (0..<1000).map { $0 == 0 ? #""a""# : #""a\#($0)""# }.joined(separator: ",")
let hostileJSON = #"{"applinks": {"substitutionVariables": {"v": [\#(hostileValues)]}, "details": [{"appIDs": ["A"], "components": [{"/": "/\#(String(repeating: "$(v)*", count: 16))x"}]}]}}"#
let hostileFile = try AssociationFile(json: Array(hostileJSON.utf8))
let hostileTable = LinkOwnership(userRules: [], associations: ["hostile.example": hostileFile], claims: ["A": [try DomainClaim("hostile.example")]])
let hostileLink = try WebLink("https://hostile.example/" + String(repeating: "a", count: 60_000) + "x")
var hostile: [Double] = []
for _ in 0..<11 {
    let start = ContinuousClock.now
    if case .browser(.overBudget) = hostileTable.decide(hostileLink) { checksum &+= 1 } else { fatalError("the hostile file's decision did not stop at its budget") }
    hostile.append(nanoseconds(ContinuousClock.now - start))
}
let hostileBytes = hostileJSON.utf8.count
print("the costliest file within the limits (\(hostileBytes) bytes; 1,000 values × 16 references), a 60,000-byte path, median of 11:")
print("  \(Int(median(hostile) / 1000)) µs per decision, stopped at \(AssociationFile.stepBudget) steps: \(Int(median(hostile) / worstYardstick))× the yardstick (\(Int(worstYardstick)) ns)")
if checksum == 42 { print("") }  // keeps the loops alive

extension String {
    func padding(_ width: Int) -> String { self + String(repeating: " ", count: max(0, width - count)) }
}
