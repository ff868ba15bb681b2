/// How a desktop entry's program shows up as a running process, read from its `Exec=` line: a native
/// program, or an interpreter running a script. Pure: names are resolved later (`InstalledPrograms`).
///
/// The launch shapes followed, as packagers write them:
/// - `prog args`, and `env [-i] [-u NAME] [NAME=VALUE]… prog args` (env execs prog);
/// - `sh -c 'cd dir && exec prog "$@"' sh %U` (`-ec` too; `bash`, `dash`): the command that runs last, or
///   the one after `exec`, is the program;
/// - `python3 [-u] /usr/share/app/app.py` (any interpreter `Interpreter` knows): the script;
/// - `flatpak run …`: nothing here; a sandboxed app is known by its sandbox's id alone.
public struct LaunchShape: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        /// The process runs this program (a name to look up in PATH, or a path).
        case program(String)
        /// An interpreter (nil: any) runs this script (a path, possibly relative).
        case script(interpreter: String?, script: String)
    }

    public var kind: Kind
    /// The literal arguments after the program or script, up to the first field code (`%u`) or
    /// shell parameter: a process that starts with them matches the entry better than one that does not.
    public var arguments: [String]

    public init(_ kind: Kind, arguments: [String] = []) {
        self.kind = kind
        self.arguments = arguments
    }

    /// The shape of an `Exec=` line already split into arguments; nil when it names no program
    /// that a process could be recognised by (empty, or a Flatpak launcher).
    public static func of(execArguments argv: [String]) -> LaunchShape? {
        of(argv, depth: 0)
    }

    private static func of(_ argv: [String], depth: Int) -> LaunchShape? {
        guard depth < 4, let program = argv.first, !program.isEmpty else { return nil }
        let name = baseName(program)
        if name == "env" { return of(Array(argv.dropFirst()).strippingEnvPrefix, depth: depth + 1) }
        if name == "flatpak" { return nil }
        if let family = Interpreter.family(of: name) {
            switch Interpreter.invocation(argv, family: family) {
            case .command(let text, _):
                return of(ShellWords.programCommand(text).strippingEnvPrefix, depth: depth + 1)
            case .script(let script, let index):
                return LaunchShape(.script(interpreter: program, script: script), arguments: literal(argv[(index + 1)...]))
            case .inline, .standardInput:
                return LaunchShape(.program(program), arguments: literal(argv.dropFirst()))
            }
        }
        return LaunchShape(.program(program), arguments: literal(argv.dropFirst()))
    }

    /// The arguments before the first field code (`%u`, `@@u` of Flatpak) or shell parameter (`$1`).
    static func literal(_ arguments: ArraySlice<String>) -> [String] {
        Array(arguments.prefix { !$0.contains("%") && !$0.hasPrefix("@@") && !$0.contains("$") })
    }
}

extension [String] {
    /// What `env` runs: its options (`-i`, `-u NAME`, `-C DIR`) and `NAME=VALUE` words skipped.
    /// Also what a shell command runs after its `NAME=VALUE` prefixes and `exec`.
    var strippingEnvPrefix: [String] {
        var rest = self[...]
        while let word = rest.first {
            if word == "--" {
                rest = rest.dropFirst()
                break
            }
            if word == "-u" || word == "-C" || word == "--unset" || word == "--chdir" {
                rest = rest.dropFirst(2)
            } else if word.hasPrefix("-") || word == "exec" || word == "env" || isAssignment(word) {
                rest = rest.dropFirst()
            } else {
                break
            }
        }
        return Array(rest)
    }

    private func isAssignment(_ word: String) -> Bool {
        guard let equals = word.firstIndex(of: "="), equals != word.startIndex else { return false }
        return word[..<equals].allSatisfy { $0 == "_" || $0.isLetter || $0.isNumber }
    }
}

/// A script's `#!` line: the interpreter and its one optional argument (Linux passes the rest of the
/// line as one argument). `#!/usr/bin/env python3` names `python3`, to look up in PATH.
public struct Shebang: Sendable, Hashable {
    public let interpreter: String
    public let argument: String?

    /// The interpreter the script really runs under: `env`'s program when the line goes through env.
    public var program: String {
        if baseName(interpreter) == "env", let argument {
            // `env -S python3 -u` splits; the program is its first word that is not an option.
            return argument.split(separator: " ").map(String.init).strippingEnvPrefix.first ?? argument
        }
        return interpreter
    }

    /// - Parameter head: the first bytes of the file.
    /// - Returns: nil when the file does not start with `#!`.
    public init?(head: some Collection<UInt8>) {
        guard head.starts(with: [0x23, 0x21]) else { return nil }
        let line = head.dropFirst(2).prefix { $0 != 0x0A }
        let text = String(decoding: line, as: UTF8.self).trimmingWhitespace
        guard !text.isEmpty else { return nil }
        let split = text.firstIndex { $0 == " " || $0 == "\t" }
        interpreter = String(text[..<(split ?? text.endIndex)])
        let rest = split.map { String(text[$0...]).trimmingWhitespace } ?? ""
        argument = rest.isEmpty ? nil : rest
    }

    /// The absolute programs a wrapper script hands over to with `exec /path/prog …`, in order.
    public static func execTargets(ofScript text: some Collection<UInt8>) -> [String] {
        execShapes(ofScript: text).compactMap { if case .program(let path) = $0.kind { path } else { nil } }
    }

    /// What a wrapper script hands over to with `exec`, in order: an absolute program
    /// (`exec /usr/lib/firefox/firefox "$@"`), or an interpreter with a script
    /// (`exec python3 /usr/share/app/app.py "$@"`), each followed as an `Exec=` line is. A relative
    /// script counts after a `cd` to an absolute directory (`cd /usr/share/app && exec python3
    /// app.py`); any other relative program or script is left out: it depends on where the wrapper runs.
    public static func execShapes(ofScript text: some Collection<UInt8>) -> [LaunchShape] {
        var shapes: [LaunchShape] = []
        var directory: String?
        for line in String(decoding: text, as: UTF8.self).split(separator: "\n") {
            for command in ShellWords.commands(String(line)) {
                if command.first == "cd" {
                    directory = command.count == 2 && command[1].hasPrefix("/") && !command[1].contains("$") ? command[1] : nil
                    continue
                }
                guard let at = command.firstIndex(of: "exec"), command[..<at].allSatisfy({ $0.contains("=") || ["then", "else", "do", "{", "!"].contains($0) }),
                      var shape = LaunchShape.of(execArguments: Array(command[at...]).strippingEnvPrefix)
                else { continue }
                let followed: Bool
                switch shape.kind {
                case .program(let program): followed = program.hasPrefix("/")
                case .script(let interpreter, let script) where !script.hasPrefix("/") && !script.contains("$"):
                    guard let directory else { followed = false; break }
                    shape.kind = .script(interpreter: interpreter, script: directory + "/" + script)
                    followed = true
                case .script(_, let script): followed = script.hasPrefix("/")
                }
                if followed, !shapes.contains(where: { $0.kind == shape.kind }) { shapes.append(shape) }
            }
        }
        return shapes
    }
}

/// Splits shell command text into simple commands and words, as far as identifying a program needs:
/// quotes and backslashes are honoured, `;`, `&&`, `||`, `|`, `&` and newlines separate commands;
/// expansions are kept as written.
enum ShellWords {
    static func commands(_ text: String) -> [[String]] {
        var commands: [[String]] = []
        var words: [String] = []
        var word = ""
        var inWord = false
        var quote: Character?
        var escaped = false
        func endWord() {
            if inWord { words.append(word) }
            word = ""
            inWord = false
        }
        func endCommand() {
            endWord()
            if !words.isEmpty { commands.append(words) }
            words = []
        }
        for character in text {
            if escaped {
                word.append(character)
                escaped = false
                continue
            }
            switch quote {
            case "'":
                if character == "'" { quote = nil } else { word.append(character) }
            case "\"":
                if character == "\"" { quote = nil } else if character == "\\" { escaped = true } else { word.append(character) }
            default:
                switch character {
                case "'", "\"": quote = character; inWord = true
                case "\\": escaped = true; inWord = true
                case " ", "\t": endWord()
                case ";", "&", "|", "\n", "(", ")": endCommand()
                case "#" where !inWord: return commands + (words.isEmpty ? [] : [words])
                default: word.append(character); inWord = true
                }
            }
        }
        endCommand()
        return commands
    }

    /// The command of a `sh -c` text that runs the program: the one after `exec`, else the last.
    static func programCommand(_ text: String) -> [String] {
        let all = commands(text)
        return all.first { $0.first == "exec" } ?? all.last ?? []
    }
}

func baseName(_ path: some StringProtocol) -> String {
    path.lastIndex(of: "/").map { String(path[path.index(after: $0)...]) } ?? String(path)
}

extension String {
    var trimmingWhitespace: String {
        var text = Substring(self)
        while let first = text.first, first == " " || first == "\t" || first == "\r" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" || last == "\r" { text = text.dropLast() }
        return String(text)
    }
}
