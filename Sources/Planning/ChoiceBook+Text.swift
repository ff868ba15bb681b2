// The text of the choices file, `$XDG_CONFIG_HOME/waypost/choices`: one fact a line, tab-separated,
// so that a person can read it and `waypost choices` can change it without a parser of its own.
//
//     choice	site:example.com	*	firefox-esr#profile=personal	2026-12-01
//     choice	scheme:zoommtg	org.example.Chat	us.zoom.Zoom	2026-12-02
//     links-off	org.example.Shop

extension ChoiceBook {
    /// At most this many choices are read (the rest are reported as problems).
    public static let limit = 10_000

    /// A line the file could not use: its number, and why.
    public struct Problem: Sendable, Equatable, CustomStringConvertible {
        public var line: Int
        public var reason: String
        public var description: String { "line \(line): \(reason)" }
    }

    /// Reads the file's text; lines that do not read are skipped and reported, the rest kept.
    public init(text: String) {
        self.init()
        var problems: [Problem] = []
        var count = 0
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if line.isEmpty || line.hasPrefix("#") { continue }
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            switch fields.first {
            case "choice" where fields.count == 5:
                guard count < Self.limit else {
                    problems.append(Problem(line: index + 1, reason: "more than \(Self.limit) choices"))
                    continue
                }
                guard let scope = ChoiceScope(fields[1]) else {
                    problems.append(Problem(line: index + 1, reason: "not a scope: \(fields[1])"))
                    continue
                }
                guard let destination = NamedDestination(fields[3]), !fields[2].isEmpty else {
                    problems.append(Problem(line: index + 1, reason: "not a destination: \(fields[3])"))
                    continue
                }
                remember(RememberedChoice(scope: scope, opener: fields[2] == "*" ? nil : fields[2], destination: destination, made: fields[4]))
                count += 1
            case "links-off" where fields.count == 2 && !fields[1].isEmpty:
                linksOff.insert(fields[1])
            default:
                problems.append(Problem(line: index + 1, reason: "neither a choice (5 fields) nor links-off (2 fields)"))
            }
        }
        self.problems = problems
    }

    /// The file's text: a heading, then every choice and every app whose links are off, sorted.
    public var text: String {
        var text = "# Waypost's remembered choices: `waypost choices` lists and changes them.\n"
        for choice in all {
            text += "choice\t\(choice.scope)\t\(choice.opener ?? "*")\t\(choice.destination)\t\(choice.made)\n"
        }
        for app in linksOff.sorted() { text += "links-off\t\(app)\n" }
        return text
    }
}
