/// The interpreters whose processes name the script they run in their arguments, and how each one's
/// own command line says whether it runs a script file, inline code, or standard input.
///
/// Each family's grammar is the interpreter's own: CPython's `-uc CODE` is `-u` then `-c CODE` (short
/// options cluster, and one that takes a value takes the rest of the word or the next word); `-c` and
/// `-m` end the options; `-` is standard input and `--` ends options before the script. A process
/// whose arguments hold inline code anywhere (`python3 -c`, `perl -e`, `node -e`, `lua -e`) runs no
/// script file for identification, whatever word follows.
public enum Interpreter {
    public struct Family: Sendable, Hashable {
        public let name: String
        /// Short options may be grouped in one word (`-uc`, `-Sc`, `-ne`).
        let clusters: Bool
        /// Short options whose value is code to run, or a module (`-c`, `-m`, `-e`): no script file.
        let inline: Set<Character>
        /// Short options whose value is the rest of the word or, when none is left, the next word.
        let valued: Set<Character>
        /// Short options that take the rest of their word, if any, as an optional value (`perl -i.bak`).
        let attachedOnly: Set<Character>
        /// Short options whose value is the script (`php -f FILE`).
        let scriptOption: Set<Character>
        /// Long options as `inline`, and as `valued` (the next word, unless written `--name=value`).
        let longInline: Set<String>
        let longValued: Set<String>

        public var isShell: Bool { Self.shells.contains(name) }
        static let shells: Set<String> = ["sh", "bash", "dash", "zsh", "ksh", "mksh"]
    }

    /// What an interpreter's command line runs.
    public enum Invocation: Sendable, Hashable {
        /// A script file, as written, and its index in the argument vector.
        case script(String, index: Int)
        /// A shell's command text (`sh -c TEXT`, `sh -ec TEXT`), and its index.
        case command(String, index: Int)
        /// Inline code or a module (`-c`, `-m`, `-e`): no script file.
        case inline
        /// Standard input or an interactive session: no script file.
        case standardInput
    }

    static let families: [String: Family] = {
        var all: [String: Family] = [:]
        func add(
            _ names: [String], clusters: Bool, inline: Set<Character> = [], valued: Set<Character> = [],
            attachedOnly: Set<Character> = [], scriptOption: Set<Character> = [], longInline: Set<String> = [],
            longValued: Set<String> = []
        ) {
            for name in names {
                all[name] = Family(
                    name: name, clusters: clusters, inline: inline, valued: valued, attachedOnly: attachedOnly,
                    scriptOption: scriptOption, longInline: longInline, longValued: longValued)
            }
        }
        // CPython's Modules/main.c and Python/getopt.c: "bBc:dEhiIm:OPqRsStuvVW:xX:?".
        add(["python", "pypy"], clusters: true, inline: ["c", "m"], valued: ["W", "X", "Q"], longValued: ["--check-hash-based-pycs"])
        // perlrun: -e/-E take the rest or the next word; -I too; -0, -l, -i, -x… only what is attached.
        add(["perl"], clusters: true, inline: ["e", "E"], valued: ["I"], attachedOnly: ["0", "l", "i", "C", "d", "D", "F", "x", "V", "M", "m"])
        add(["ruby"], clusters: true, inline: ["e"], valued: ["I", "r", "C", "E"], attachedOnly: ["0", "i", "x", "T", "W", "K", "F", "l"])
        // Node does not group short options (`-pe` is its one alias, caught by `-p`).
        add(["node", "nodejs"], clusters: false, inline: ["e", "p"], valued: ["r"],
            longInline: ["--eval", "--print"], longValued: ["--require", "--import", "--loader", "--experimental-loader", "--input-type", "--conditions"])
        // Shells: any `c` among the options makes the first operand the command text (`sh -ec TEXT`);
        // `-s` reads standard input; `-o`/`+o`, `-O`/`+O` take the next word.
        add(Array(Family.shells), clusters: true, valued: ["o", "O"], longValued: ["--rcfile", "--init-file"])
        // lua.c: no grouping; -e and -l take the rest or the next word.
        add(["lua", "luajit"], clusters: false, inline: ["e"], valued: ["l"])
        add(["php"], clusters: false, inline: ["r", "B", "R", "E"], valued: ["c", "d", "z", "t"], scriptOption: ["f"])
        add(["tclsh", "wish"], clusters: false)
        add(["gjs"], clusters: false, inline: ["c"], valued: ["I"], longInline: ["--command"], longValued: ["--include-path"])
        return all
    }()

    /// The family of a program by its file name, version suffix ignored (`python3.11` → python).
    public static func family(of programName: String) -> Family? {
        var name = Substring(programName)
        while let last = name.last, last.isNumber || last == "." { name = name.dropLast() }
        return families[String(name)]
    }

    /// What the command line `argv` (`argv[0]` is the interpreter) runs, by the family's grammar.
    public static func invocation(_ argv: [String], family: Family) -> Invocation {
        var shellCommand = false, shellStandardInput = false
        func operand(_ index: Int) -> Invocation {
            if shellCommand { return index < argv.count ? .command(argv[index], index: index) : .standardInput }
            if shellStandardInput || index >= argv.count { return .standardInput }
            return .script(argv[index], index: index)
        }
        var index = 1
        while index < argv.count {
            let word = argv[index]
            if word == "--" { return operand(index + 1) }
            if word == "-" { return shellCommand ? operand(index + 1) : .standardInput }
            if word.hasPrefix("--") {
                let name = word.split(separator: "=", maxSplits: 1).first.map(String.init) ?? word
                if family.longInline.contains(name) { return .inline }
                index += family.longValued.contains(name) && !word.contains("=") ? 2 : 1
                continue
            }
            guard word.count > 1, word.hasPrefix("-") || (family.isShell && word.hasPrefix("+")) else { return operand(index) }
            var letters = word.dropFirst()
            var takesNextWord = false
            while let letter = letters.popFirst() {
                if family.isShell, letter == "c" { shellCommand = true }
                if family.isShell, letter == "s" { shellStandardInput = true }
                if family.inline.contains(letter) { return .inline }
                if family.scriptOption.contains(letter) {
                    if !letters.isEmpty { return .script(String(letters), index: index) }
                    return index + 1 < argv.count ? .script(argv[index + 1], index: index + 1) : .standardInput
                }
                if family.valued.contains(letter) {
                    takesNextWord = letters.isEmpty
                    break
                }
                // What perl and ruby attach (`-0777`, `-i.bak`) may go on with more switches
                // (`-0777ne`): inline code in the rest of the word is taken as such, never a script.
                if family.attachedOnly.contains(letter) {
                    if letters.contains(where: family.inline.contains) { return .inline }
                    break
                }
                if !family.clusters { break }
            }
            index += takesNextWord ? 2 : 1
        }
        return shellCommand || shellStandardInput ? operand(index) : .standardInput
    }

    /// The script file an interpreter's arguments name, and its index; nil when they run none
    /// (inline code, a module, standard input, a shell's command text).
    public static func scriptArgument(_ argv: [String], family: Family) -> (String, Int)? {
        guard case .script(let script, let index) = invocation(argv, family: family) else { return nil }
        return (script, index)
    }
}
