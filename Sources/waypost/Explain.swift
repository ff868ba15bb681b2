import ArgumentParser
import DBus
import Desktop
import ExternalEvents
import FoundationEssentials
import Glibc
import WaypostContract

/// `waypost explain URI` (live, asks the daemon) or `waypost explain --scenario FILE` (offline):
/// where one event would go, and why.
struct Explain: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "explain",
        abstract: "Explain where an event would be routed, and by which rule.",
        discussion: """
            With a URI, asks the running dispatcher what it would do now, over the live scenes, and \
            delivers nothing: the plan Open would carry out, its first destination and then every step \
            (steps): each destination Open tries when all before it refused or vanished. With --scenario, reads a JSON scenario (an app's scene declarations, its \
            open scenes in search order, and one event) and prints the decision: {"action", "scene" or \
            "declaration", "rule", "reason"}. Exits 0 for any decision, non-zero when the scenario is \
            malformed or the dispatcher refuses the URI.
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case json, text
    }

    @ArgumentParser.Argument(help: "A URI to explain against the running dispatcher's live state.")
    var uri: String?

    @Option(name: .long, help: "The scenario file (JSON).")
    var scenario: String?

    @Option(name: .long, help: "Output format: json or text.")
    var format: Format = .json

    @Option(name: .long, help: ArgumentHelp(
        "Explain as if this app (a desktop-file id) had opened the link: rules naming openers, and the self-loop guard.",
        valueName: "app-id"))
    var opener: String?

    func validate() throws {
        guard (uri == nil) != (scenario == nil) else {
            throw ValidationError("give either a URI or --scenario FILE")
        }
        guard opener == nil || uri != nil else { throw ValidationError("--opener applies to a URI, not to --scenario") }
    }

    func run() async throws {
        if let uri { return try await explainLive(uri) }
        let scenario = scenario!
        let decision: Decision
        do {
            decision = try ScenarioFile.decide(path: scenario)
        } catch {
            printError("waypost: \(scenario): \(error)")
            throw ExitCode(error.exitCode)
        }
        switch format {
        case .json: print(DecisionOutput(decision).json)
        case .text: print(DecisionOutput(decision).text)
        }
    }

    private func explainLive(_ uri: String) async throws {
        let connection = try await BusClient.connect()
        let reply = if let opener {
            try await BusClient.callDispatcher(
                connection, Contract.Dispatcher1.explainOpenedBy, uri, opener, failing: "cannot explain \(uri)")
        } else {
            try await BusClient.callDispatcher(connection, Contract.Dispatcher1.explain, uri, failing: "cannot explain \(uri)")
        }
        try Self.printOutcome(reply, format: format)
    }

    /// An `Explain`-like reply, as `--format` asks.
    static func printOutcome(_ reply: Message, format: Format) throws {
        let outcome = BusClient.outcome(try reply.decode([String: Variant].self))
        let steps = outcome.steps ?? []
        switch format {
        case .json:
            var members = Self.fields(outcome).map { "\(DecisionOutput.quoted($0)): \(DecisionOutput.quoted($1))" }
            if !steps.isEmpty {
                let listed = steps.map { step in
                    "{" + Self.fields(step).map { "\(DecisionOutput.quoted($0)): \(DecisionOutput.quoted($1))" }.joined(separator: ", ") + "}"
                }
                members.append("\(DecisionOutput.quoted(Contract.RoutingOutcome.Keys.steps.name)): [" + listed.joined(separator: ", ") + "]")
            }
            print("{" + members.joined(separator: ", ") + "}")
        case .text:
            for (key, value) in Self.fields(outcome) { print("\(key + ":")\(String(repeating: " ", count: 16 - key.count))\(value)") }
            // The whole plan: what Open tries next when a destination refuses.
            if !steps.isEmpty { print("steps:") }
            for (number, step) in steps.enumerated() {
                let place = step.sceneID.map { " scene \($0)" } ?? step.declarationID.map { " new scene of \($0)" } ?? ""
                print("  \(number + 1). \(step.action?.rawValue ?? "?") \(step.appID ?? "?")\(place), rule \(step.rule?.rawValue ?? "?"): \(step.reason ?? "")")
            }
            // Where it goes does not say whether its window comes forward: on Wayland that is the token's.
            if getenv("WAYLAND_DISPLAY") != nil {
                print("window:         comes to the front only if the opener gives a token (gio open from a terminal and Firefox give none)")
            }
        }
    }

    /// The outcome's keys that hold a value, in reading order.
    private static func fields(_ outcome: Contract.RoutingOutcome) -> [(String, String)] {
        typealias Keys = Contract.RoutingOutcome.Keys
        return [
            (Keys.action.name, outcome.action?.rawValue), (Keys.appID.name, outcome.appID), (Keys.sceneID.name, outcome.sceneID),
            (Keys.declarationID.name, outcome.declarationID), (Keys.rule.name, outcome.rule?.rawValue), (Keys.reason.name, outcome.reason),
            (Keys.opener.name, outcome.opener),
        ].compactMap { key, value in value.map { (key, $0) } }
    }
}

/// Reads a scenario file and decides.
enum ScenarioFile {
    /// - Throws: `ScenarioProblem` naming what is wrong with the file.
    static func decide(path: String) throws(ScenarioProblem) -> Decision {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw .unreadable(path: path)
        }
        let scenario: Scenario
        do {
            scenario = try JSONDecoder().decode(Scenario.self, from: data)
        } catch let error as DecodingError {
            throw .malformed(ScenarioProblem.describe(error))
        } catch {
            throw .malformed("\(error)")
        }
        let contentTypes: ContentTypes
        do { contentTypes = try ContentTypes() } catch { throw .desktopUnavailable(error) }
        do {
            return try scenario.router(contentTypes: contentTypes).route(scenario.event)
        } catch {
            throw .inconsistent(error)
        }
    }
}

/// What is wrong with a scenario file; each case carries the offending part.
enum ScenarioProblem: Error, CustomStringConvertible {
    case unreadable(path: String)
    case malformed(String)
    case inconsistent(RoutingError)
    /// Not the file's fault: content types come from GIO, which could not be opened.
    case desktopUnavailable(GIOLoadError)

    var description: String {
        switch self {
        case .unreadable: "cannot read the file"
        case .malformed(let message): message
        case .inconsistent(let error): error.description
        case .desktopUnavailable(let error): error.description
        }
    }

    /// sysexits: EX_NOINPUT for a file that cannot be read, EX_DATAERR for bad content,
    /// EX_UNAVAILABLE without GIO.
    var exitCode: Int32 {
        switch self {
        case .unreadable: 66
        case .malformed, .inconsistent: 65
        case .desktopUnavailable: 69
        }
    }

    /// Turns a decoding error into one line: where in the document, and what is wrong.
    static func describe(_ error: DecodingError) -> String {
        func path(_ keys: [any CodingKey]) -> String {
            var text = ""
            for key in keys {
                if let index = key.intValue { text += "[\(index)]" } else { text += (text.isEmpty ? "" : ".") + key.stringValue }
            }
            return text.isEmpty ? "the top level" : text
        }
        switch error {
        case .typeMismatch(let type, let context):
            return "at \(path(context.codingPath)): expected \(describe(type))"
        case .valueNotFound(let type, let context):
            return "at \(path(context.codingPath)): expected \(describe(type)), found null"
        case .keyNotFound(let key, let context):
            return "at \(path(context.codingPath)): missing key \"\(key.stringValue)\""
        case .dataCorrupted(let context) where context.codingPath.isEmpty:
            let detail = context.underlyingError.map { ": \($0)" } ?? ""
            return context.debugDescription.hasPrefix("an event") || context.debugDescription.hasPrefix("unknown")
                ? "at the top level: \(context.debugDescription)"
                : "not valid JSON (\(context.debugDescription)\(detail))"
        case .dataCorrupted(let context):
            return "at \(path(context.codingPath)): \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: return "a string"
        case is Bool.Type: return "true or false"
        default:
            // JSONDecoder reports containers as Array<Any> or Dictionary<String, Any>.
            let name = String(describing: type)
            return name.hasPrefix("Array") ? "an array" : name.hasPrefix("Dictionary") ? "an object" : name
        }
    }
}

/// A decision as `explain` prints it.
struct DecisionOutput {
    let action: String
    let scene: String?
    let declaration: String?
    let rule: String
    let reason: String

    init(_ decision: Decision) {
        switch decision.action {
        case .deliver(let scene): (action, self.scene, declaration) = ("deliver", scene, nil)
        case .create(let declaration): (action, scene, self.declaration) = ("create", nil, declaration)
        case .unhandled: (action, scene, declaration) = ("unhandled", nil, nil)
        }
        rule = decision.rule.rawValue
        reason = decision.reason
    }

    /// One JSON object, keys in reading order: action, where, rule, reason.
    var json: String {
        var fields = [("action", action)]
        if let scene { fields.append(("scene", scene)) }
        if let declaration { fields.append(("declaration", declaration)) }
        fields += [("rule", rule), ("reason", reason)]
        return "{" + fields.map { "\(Self.quoted($0)): \(Self.quoted($1))" }.joined(separator: ", ") + "}"
    }

    /// A JSON string literal (RFC 8259: quote, backslash and control characters escaped).
    static func quoted(_ string: String) -> String {
        var out = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    var text: String {
        let destination = scene.map { "open scene \"\($0)\"" }
            ?? declaration.map { "new scene of \"\($0)\"" } ?? "nowhere (unhandled)"
        return "destination: \(destination)\nrule:        \(rule)\nreason:      \(reason)"
    }
}

func printError(_ message: String) {
    var standardError = StandardError()
    print(message, to: &standardError)
}

private struct StandardError: TextOutputStream {
    mutating func write(_ string: String) {
        // FoundationEssentials has no FileHandle, and full Foundation is not worth linking for one stream.
        _ = Glibc.write(2, string, string.utf8.count)
    }
}
