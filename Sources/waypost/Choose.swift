import ArgumentParser
import Chooser
import Glibc
import Planning

/// `waypost choose`: the window the daemon shows when several apps could take a link or an
/// activity. It prints the user's answer as one line on stdout; hidden from the help, since the
/// daemon runs it. Runs on the main thread (see `Entry.main`): GTK belongs to the thread that
/// initialised it.
struct Choose: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "choose",
        abstract: "Ask which app opens a link or an activity (the dispatcher runs this).",
        usage: """
            waypost choose --subject <subject> --scope <scope> [--opener <app>] --candidate <dest> [--candidate <dest> ...]
            waypost choose --serve
            """,
        discussion: """
            Shows a window (GTK 4, loaded at run time) listing the candidates, and prints one line on stdout: \
            `pick<TAB>DEST<TAB>once|always<TAB>any|opener<TAB>TOKEN` once the user picked (TOKEN, an activation \
            token for the chosen app's window, may be empty), or `cancel` when they did not. Exits 3, printing \
            nothing on stdout, when GTK cannot be loaded or no display can be opened. \
            DEST is APP, APP#profile=NAME or APP#private (APP a desktop-file id without .desktop). SCOPE is \
            site:HOST, scheme:NAME, activity-type:TYPE or browser. \
            With --serve it stays running for the dispatcher: it prints `ready` once a display is open, then \
            reads requests on stdin, one a line, `TOKEN<TAB>SUBJECT<TAB>SCOPE<TAB>OPENER<TAB>DEST[<TAB>DEST...]` \
            (TOKEN, the opener's activation token, and OPENER may be empty), shows a window for each and prints \
            one line for each: the answer above, or `error<TAB>REASON` for a line it cannot read. It exits 0 \
            at the end of stdin.
            """,
        shouldDisplay: false)

    @Flag(help: "Stay running: read requests on stdin, one a line, and print an answer for each.")
    var serve = false

    @Option(help: "What is being opened: a link, or an activity's title.")
    var subject: String?

    @Option(help: ArgumentHelp("What \"Always\" covers.", valueName: "scope"), transform: Self.scope)
    var scope: ChoiceScope?

    @Option(help: ArgumentHelp("The desktop-file id of the app the link came from.", valueName: "app"))
    var opener: String?

    @Option(name: .customLong("candidate"), help: ArgumentHelp("An app that can open it, in the order shown.", valueName: "dest"),
            transform: Self.destination)
    var candidates: [NamedDestination] = []

    func validate() throws {
        if serve {
            guard subject == nil, scope == nil, opener == nil, candidates.isEmpty else {
                throw ValidationError("--serve reads its requests on stdin and takes no other option")
            }
            return
        }
        guard subject != nil else { throw ValidationError("--subject is needed") }
        guard scope != nil else { throw ValidationError("--scope is needed") }
        guard !candidates.isEmpty else { throw ValidationError("at least one --candidate is needed") }
        if let opener, NamedDestination(opener)?.window != .usual {
            throw ValidationError("--opener takes a desktop-file id, not \(opener)")
        }
    }

    func run() throws {
        if serve { return try runServing() }
        guard let subject, let scope else { throw ValidationError("--subject and --scope are needed") }
        let request = ChooserRequest(subject: subject, scope: scope, opener: opener, candidates: candidates)
        let answer: ChooserAnswer
        do { answer = try chooseDestination(request) } catch {
            printError("waypost choose: \(error)")
            throw ExitCode(3)
        }
        print(answer.line)
    }

    /// `--serve`: one line written for each request, at once (stdout is a pipe, fully buffered
    /// otherwise). A write that fails (the reader is gone; SIGPIPE is ignored to see it) ends it.
    private func runServing() throws {
        signal(SIGPIPE, SIG_IGN)
        let end: ServeEnd
        do { end = try serveChoosers(input: STDIN_FILENO, write: Self.writeLine) } catch {
            printError("waypost choose: \(error)")
            throw ExitCode(3)
        }
        if end == .outputClosed {
            printError("waypost choose: stdout is closed")
            throw ExitCode(1)
        }
    }

    /// Writes `line` and a newline to stdout in full (EINTR retried); false when it cannot.
    private static func writeLine(_ line: String) -> Bool {
        var bytes = Array((line + "\n").utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { write(STDOUT_FILENO, $0.baseAddress, $0.count) }
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { return false }
            bytes = bytes.dropFirst(written)
        }
        return true
    }

    /// Runs `waypost choose …` on the calling (main) thread: the parser as the root command sees it,
    /// so that help and errors read `waypost choose`; exits with the command's status.
    static func runOnThisThread(_ arguments: [String]) -> Never {
        do {
            var command = try Waypost.parseAsRoot(arguments)
            try command.run()
            Waypost.exit()
        } catch {
            Waypost.exit(withError: error)
        }
    }

    private static func scope(_ text: String) throws -> ChoiceScope {
        guard let scope = ChoiceScope(text) else { throw ValidationError("not a scope: \(text)") }
        return scope
    }

    private static func destination(_ text: String) throws -> NamedDestination {
        guard let destination = NamedDestination(text) else { throw ValidationError("not a destination: \(text)") }
        return destination
    }
}
