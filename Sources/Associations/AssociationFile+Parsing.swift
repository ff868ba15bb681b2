// One file: every key of the format is read here, with the limits that bound what a file costs;
// they change together when the format does.
import FoundationEssentials

extension AssociationFile {
    /// Reads the JSON document key by key, each value's path at hand for a refusal.
    enum Parser {
        struct Result {
            var details: [Details] = []
            var hasAppLinks = false
            var scope: RuleScope?
            var warnings: [AssociationFileError] = []
        }

        static func parse(_ json: some Collection<UInt8>) throws(AssociationFileError) -> Result {
            guard json.count <= AssociationFile.maximumBytes else {
                throw AssociationFileError(
                    path: "$", problem: "the file is \(json.count) bytes; at most \(AssociationFile.maximumBytes) are read", exceeded: .size)
            }
            let depth = Self.nesting(json)
            guard depth <= AssociationFile.maximumNesting else {
                throw AssociationFileError(
                    path: "$", problem: "arrays and objects are nested \(depth) deep; at most \(AssociationFile.maximumNesting) are read",
                    exceeded: .nesting)
            }
            let document: AppLinksValue
            do {
                document = try JSONDecoder().decode(JSONDocument.self, from: Data(json)).value
            } catch let error as DecodingError {
                throw Self.describe(error)
            } catch {
                throw AssociationFileError(path: "$", problem: "not valid JSON (\(error))")
            }
            let root = JSONPath()
            let top = try object(document, at: root)
            var result = Result()
            result.scope = try scope(top, at: root)
            guard let appLinksValue = top["applinks"] else { return result }
            result.hasAppLinks = true
            let appLinksPath = root.appending("applinks")
            let appLinks = try object(appLinksValue, at: appLinksPath)

            var variables: [String: [String]] = [:]
            if let value = appLinks["substitutionVariables"] {
                let path = appLinksPath.appending("substitutionVariables")
                for (name, values) in try object(value, at: path) {
                    let list = try strings(values, at: path.appending(name))
                    guard list.count <= AssociationFile.maximumVariableValues else {
                        throw AssociationFileError(
                            path: path.appending(name).description,
                            problem: "the variable has \(list.count) values; at most \(AssociationFile.maximumVariableValues) are read",
                            exceeded: .substitutions)
                    }
                    variables[name] = list
                }
            }
            var compiler = PatternCompiler(fileVariables: variables)
            let fileDefaults = try appLinks["defaults"].map { value throws(AssociationFileError) in
                try settings(value, at: appLinksPath.appending("defaults"), warnings: &result.warnings)
            }
            let fileLevel = Level(settings: fileDefaults ?? ComponentSettings(), path: appLinksPath.appending("defaults"))

            guard let detailsValue = appLinks["details"] else { return result }
            let detailsPath = appLinksPath.appending("details")
            guard case .array(let entries) = detailsValue else {
                let form = detailsValue.kind == "an object" ? " (the iOS 9 form keyed by app ID is not read)" : ""
                throw AssociationFileError(
                    path: detailsPath.description, problem: "expected an array of details entries, found \(detailsValue.kind)\(form)")
            }
            for (entryIndex, entryValue) in entries.enumerated() {
                let entryPath = detailsPath.appending(entryIndex)
                let entry = try object(entryValue, at: entryPath)
                let apps: [String]
                if let value = entry["appIDs"] {
                    apps = try strings(value, at: entryPath.appending("appIDs"))
                } else if let value = entry["appID"] {
                    apps = [try string(value, at: entryPath.appending("appID"))]
                } else {
                    apps = []
                }
                let entryDefaults = try entry["defaults"].map { value throws(AssociationFileError) in
                    try settings(value, at: entryPath.appending("defaults"), warnings: &result.warnings)
                }
                let entryLevel = Level(settings: entryDefaults ?? ComponentSettings(), path: entryPath.appending("defaults"))

                let rules: Rules
                if let value = entry["components"] {
                    let componentsPath = entryPath.appending("components")
                    guard case .array(let list) = value else {
                        throw AssociationFileError(path: componentsPath.description, problem: "expected an array, found \(value.kind)")
                    }
                    var components: [Component] = []
                    for (index, componentValue) in list.enumerated() {
                        let componentPath = componentsPath.appending(index)
                        let own = Level(settings: try settings(componentValue, at: componentPath, warnings: &result.warnings), path: componentPath)
                        components.append(compile([own, entryLevel, fileLevel], &compiler, &result.warnings))
                        guard compiler.expandedValues <= AssociationFile.maximumExpandedValues else {
                            throw AssociationFileError(
                                path: componentPath.description,
                                problem: "substitution variables' values times their references reach \(compiler.expandedValues) here; at most \(AssociationFile.maximumExpandedValues) are compiled",
                                exceeded: .substitutions)
                        }
                    }
                    rules = .components(components, checks: components.map { PathPrefixCheck($0.path, $0.spelling) })
                } else if let value = entry["paths"] {
                    let paths = try strings(value, at: entryPath.appending("paths"))
                    rules = .paths(paths.map { path in
                        let exclude = path.hasPrefix("NOT ")
                        let pattern = exclude ? String(path.dropFirst(4)) : path
                        return (PatternCompiler.compileLegacy(pattern), exclude)
                    })
                } else {
                    rules = .none
                }
                result.details.append(Details(apps: apps, rules: rules))
            }
            return result
        }

        /// One level of settings and where it is written, for warnings.
        struct Level {
            let settings: ComponentSettings
            let path: JSONPath
        }

        /// A component from its own keys over the entry's and the file's defaults.
        private static func compile(
            _ levels: [Level], _ compiler: inout PatternCompiler, _ warnings: inout [AssociationFileError]
        ) -> Component {
            let merged = levels[0].settings.over(levels[1].settings).over(levels[2].settings)
            let spelling = PatternCompiler.Spelling(
                caseSensitive: merged.caseSensitive ?? true, percentEncoded: merged.percentEncoded ?? true)
            func pattern(_ text: String?, key: String, has: (ComponentSettings) -> Bool) -> Pattern? {
                guard let text else { return nil }
                do {
                    let compiled = try compiler.compile(text, spelling)
                    return compiled.matchesEverything ? nil : compiled
                } catch {
                    let at = (levels.first { has($0.settings) } ?? levels[0]).path.appending(key)
                    warnings.append(AssociationFileError(
                        path: at.description,
                        problem: "$(\(error.name)) is a substitution variable neither the file nor Apple defines; this component matches nothing"))
                    return Pattern(unmatchable: text)
                }
            }
            let query: QueryRule?
            switch merged.query {
            case nil:
                query = nil
            case .pattern(let text):
                query = pattern(text, key: "?") { $0.query != nil }.map { .whole($0) }
            case .items(let items):
                query = .items(items.keys.sorted().map { name in
                    let value = pattern(items[name], key: "?") { $0.query != nil } ?? Pattern(source: "*", elements: [.star])
                    return (spelling.caseSensitive ? name : name.lowercased(), value)
                })
            }
            return Component(
                path: pattern(merged.path.map(PatternCompiler.pathForm), key: "/") { $0.path != nil }, query: query,
                fragment: pattern(merged.fragment, key: "#") { $0.fragment != nil },
                exclude: merged.exclude ?? false, spelling: spelling, openers: merged.openers.map(Set.init),
                own: levels[0].settings)
        }

        /// A components object (or defaults): the keys Apple defines, typed; others ignored.
        private static func settings(
            _ value: AppLinksValue, at path: JSONPath, warnings: inout [AssociationFileError]
        ) throws(AssociationFileError) -> ComponentSettings {
            let fields = try object(value, at: path)
            var settings = ComponentSettings()
            settings.path = try fields["/"].map { value throws(AssociationFileError) in try string(value, at: path.appending("/")) }
            settings.fragment = try fields["#"].map { value throws(AssociationFileError) in try string(value, at: path.appending("#")) }
            switch fields["?"] {
            case nil: break
            case .string(let pattern)?: settings.query = .pattern(pattern)
            case .object(let items)?:
                var patterns: [String: String] = [:]
                // Apple's matcher skips an item whose pattern is not a string; so does Waypost, saying so.
                for name in items.keys.sorted() {
                    guard case .string(let pattern) = items[name]! else {
                        warnings.append(AssociationFileError(
                            path: path.appending("?").appending(name).description,
                            problem: "expected a string, found \(items[name]!.kind); the query item is ignored, as Apple's matcher ignores it"))
                        continue
                    }
                    patterns[name] = pattern
                }
                settings.query = .items(patterns)
            case let other?:
                throw AssociationFileError(
                    path: path.appending("?").description,
                    problem: "expected a string or an object of query items, found \(other.kind)")
            }
            settings.exclude = try fields["exclude"].map { value throws(AssociationFileError) in try bool(value, at: path.appending("exclude")) }
            settings.caseSensitive = try fields["caseSensitive"].map { value throws(AssociationFileError) in
                try bool(value, at: path.appending("caseSensitive"))
            }
            settings.percentEncoded = try fields["percentEncoded"].map { value throws(AssociationFileError) in
                try bool(value, at: path.appending("percentEncoded"))
            }
            settings.openers = try fields["opener"].map { value throws(AssociationFileError) in
                try stringOrStrings(value, at: path.appending("opener"))
            }
            return settings
        }

        /// The top-level `"hosts"` and `"scheme"` of a user's rule; nil when it has neither.
        private static func scope(_ top: [String: AppLinksValue], at root: JSONPath) throws(AssociationFileError) -> RuleScope? {
            guard top["hosts"] != nil || top["scheme"] != nil else { return nil }
            var scope = RuleScope()
            if let value = top["hosts"] {
                let path = root.appending("hosts")
                let isList = if case .array = value { true } else { false }
                for (index, text) in try stringOrStrings(value, at: path).enumerated() {
                    if text == "*" {
                        scope.everyHost = true
                        continue
                    }
                    do { scope.hosts.append(try DomainClaim(text)) } catch {
                        throw AssociationFileError(path: (isList ? path.appending(index) : path).description, problem: "\(error.claim) is no host pattern: \(error.reason)")
                    }
                }
            }
            if let value = top["scheme"] {
                let path = root.appending("scheme")
                let isList = if case .array = value { true } else { false }
                for (index, text) in try stringOrStrings(value, at: path).enumerated() {
                    let at = isList ? path.appending(index) : path
                    let scheme = text.lowercased()
                    guard let first = scheme.utf8.first, first >= UInt8(ascii: "a"), first <= UInt8(ascii: "z"),
                        scheme.utf8.allSatisfy({ ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z")) || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") })
                    else { throw AssociationFileError(path: at.description, problem: "\"\(text)\" is not a URI scheme (a letter, then letters, digits, +, - or .)") }
                    guard !["http", "https", "file"].contains(scheme) else {
                        throw AssociationFileError(
                            path: at.description,
                            problem: "\(scheme) links are not a custom scheme; name their hosts in \"hosts\" (\"*\" for every host)")
                    }
                    scope.schemes.append(scheme)
                }
            }
            return scope
        }

        private static func object(_ value: AppLinksValue, at path: JSONPath) throws(AssociationFileError) -> [String: AppLinksValue] {
            guard case .object(let fields) = value else { throw mismatch("an object", value, path) }
            return fields
        }

        private static func string(_ value: AppLinksValue, at path: JSONPath) throws(AssociationFileError) -> String {
            guard case .string(let text) = value else { throw mismatch("a string", value, path) }
            return text
        }

        private static func bool(_ value: AppLinksValue, at path: JSONPath) throws(AssociationFileError) -> Bool {
            guard case .bool(let flag) = value else { throw mismatch("true or false", value, path) }
            return flag
        }

        private static func strings(_ value: AppLinksValue, at path: JSONPath) throws(AssociationFileError) -> [String] {
            guard case .array(let items) = value else { throw mismatch("an array of strings", value, path) }
            var texts: [String] = []
            for (index, item) in items.enumerated() { texts.append(try string(item, at: path.appending(index))) }
            return texts
        }

        /// A string, or an array of them (`"opener": "org.example.Chat"` or `[…]`).
        private static func stringOrStrings(_ value: AppLinksValue, at path: JSONPath) throws(AssociationFileError) -> [String] {
            if case .string(let text) = value { return [text] }
            guard case .array = value else { throw mismatch("a string or an array of strings", value, path) }
            return try strings(value, at: path)
        }

        private static func mismatch(_ expected: String, _ value: AppLinksValue, _ path: JSONPath) -> AssociationFileError {
            AssociationFileError(path: path.description, problem: "expected \(expected), found \(value.kind)")
        }

        /// How deep arrays and objects nest, counted over the bytes before JSONDecoder reads them
        /// (brackets inside strings are text); the count stops once past the limit.
        static func nesting(_ json: some Collection<UInt8>) -> Int {
            var depth = 0, deepest = 0
            var inString = false, escaped = false
            for byte in json {
                if inString {
                    if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                    continue
                }
                switch byte {
                case UInt8(ascii: "\""): inString = true
                case UInt8(ascii: "["), UInt8(ascii: "{"):
                    depth += 1
                    deepest = max(deepest, depth)
                    if deepest > AssociationFile.maximumNesting { return deepest }
                case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
                default: break
                }
            }
            return deepest
        }

        private static func describe(_ error: DecodingError) -> AssociationFileError {
            switch error {
            case .dataCorrupted(let context) where !context.codingPath.isEmpty:
                AssociationFileError(path: JSONPath(context.codingPath).description, problem: context.debugDescription)
            case .dataCorrupted(let context):
                AssociationFileError(path: "$", problem: "not valid JSON (\(context.debugDescription))")
            default:
                AssociationFileError(path: "$", problem: "not valid JSON (\(error))")
            }
        }
    }
}

extension PatternCompiler {
    /// A legacy `paths` pattern: wildcards only, case-sensitive, encoded; `$(` is text there.
    static func compileLegacy(_ source: String) -> Pattern {
        var compiler = PatternCompiler(fileVariables: [:], expandsVariables: false)
        // Nothing expands, so nothing can be undefined.
        return (try? compiler.compile(pathForm(source), Spelling())) ?? Pattern(unmatchable: source)
    }
}
