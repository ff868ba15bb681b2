import ArgumentParser
import AssociationSources
import Desktop
import Glibc
import Handoff
import Planning

/// `waypost choices …`: the choices the user made in the chooser ("always"), listed, set and
/// forgotten; the file is `$XDG_CONFIG_HOME/waypost/choices`, which the daemon reads again when it
/// changes.
struct Choices: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "choices",
        abstract: "List, set and forget the choices Waypost remembers when several apps could take a link.",
        discussion: """
            When more than one app could take an event (a scheme several participating apps declare, an \
            https link several apps own, an activity type several apps continue, a user rule naming \
            "ask"), Waypost shows a chooser. "Always" remembers the pick here, for the site, the scheme \
            or the activity type, optionally only for the app that opened the link. SCOPE is \
            site:HOST, scheme:NAME, activity-type:TYPE or browser (the browser for links no app takes). \
            DESTINATION is a desktop-file id, or a browser with a profile or a private window: \
            APP#profile=NAME, APP#private. A choice naming an app that no longer takes the event is \
            passed over, and the user asked again.
            """,
        subcommands: [List.self, Set.self, Forget.self],
        defaultSubcommand: List.self)

    static var file: ChoiceFile {
        get throws {
            do { return ChoiceFile(configHome: try XDGDirectories().configHome) } catch {
                printError("waypost choices: \(error)")
                throw ExitCode(69)
            }
        }
    }

    static func scope(_ text: String) throws -> ChoiceScope {
        guard let scope = ChoiceScope(text) else {
            printError("waypost choices: \"\(OutsideText.shown(text, limit: 200))\" is not a scope: site:HOST, scheme:NAME, activity-type:TYPE or browser")
            throw ExitCode(64)
        }
        return scope
    }

    static func change(_ body: (inout ChoiceBook) -> Void) throws {
        do { _ = try file.change(body) } catch let error as ChoiceFileError {
            printError("waypost choices: \(error)")
            throw ExitCode(73)
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List the remembered choices, and the apps whose links are off.")

        func run() throws {
            let file = try Choices.file
            let book: ChoiceBook
            do { book = try file.read().book } catch {
                printError("waypost choices: \(error)")
                throw ExitCode(66)
            }
            for problem in book.problems { printError("waypost choices: \(file.path): \(problem)") }
            if book.all.isEmpty && book.linksOff.isEmpty { return print("no remembered choices") }
            for choice in book.all {
                let opener = choice.opener.map { "opened from \($0)" } ?? "any opener"
                print([choice.scope.description, opener, choice.destination.description, "made \(choice.made)"]
                    .map { OutsideText.shown($0, limit: 300) }.joined(separator: "\t"))
            }
            for app in book.linksOff.sorted() { print("links off\t\(OutsideText.shown(app, limit: 300))") }
        }
    }

    struct Set: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "set", abstract: "Remember DESTINATION for SCOPE, as the chooser's \"always\" does.")

        @ArgumentParser.Argument(help: "site:HOST, scheme:NAME, activity-type:TYPE or browser.")
        var scope: String
        @ArgumentParser.Argument(help: "A desktop-file id (APP), APP#profile=NAME or APP#private.")
        var destination: String
        @Option(name: .long, help: "Only when this app (a desktop-file id) opened the event.")
        var opener: String?

        func run() throws {
            let scope = try Choices.scope(scope)
            if let opener, opener.isEmpty || opener.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F }) {
                printError("waypost choices: \"\(OutsideText.shown(opener, limit: 200))\" is not a desktop-file id")
                throw ExitCode(64)
            }
            guard var named = NamedDestination(destination) else {
                printError("waypost choices: \"\(OutsideText.shown(destination, limit: 200))\" is not a destination: APP, APP#profile=NAME or APP#private")
                throw ExitCode(64)
            }
            if named.app.hasSuffix(".desktop") { named.app.removeLast(8) }
            guard (try? ApplicationCatalog().entry(id: named.app)) != nil else {
                printError("waypost choices: no installed application \(named.app)")
                throw ExitCode(1)
            }
            let choice = RememberedChoice(scope: scope, opener: opener, destination: named, made: Today.date)
            try Choices.change { $0.remember(choice) }
            print("\(scope.spoken)\(opener.map { " opened from \($0)" } ?? ""): \(named.spoken)")
        }
    }

    struct Forget: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "forget", abstract: "Forget the choice for SCOPE: the chooser asks again.")

        @ArgumentParser.Argument(help: "site:HOST, scheme:NAME, activity-type:TYPE or browser.")
        var scope: String
        @Option(name: .long, help: "The choice limited to this opener.")
        var opener: String?

        func run() throws {
            let scope = try Choices.scope(scope)
            var forgot: RememberedChoice?
            try Choices.change { forgot = $0.forget(scope, opener: opener) }
            guard forgot != nil else {
                printError("waypost choices: no choice for \(scope)\(opener.map { " opened from \($0)" } ?? "")")
                throw ExitCode(1)
            }
            print("forgot the choice for \(scope.spoken)")
        }
    }
}

extension Links {
    /// `waypost links off APP` / `on APP`: Android's "Open supported links", per app.
    struct Off: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "off",
            abstract: "Stop opening web links in APP (its domains' links go to the browser or its co-owners).",
            discussion: "Undone by `waypost links on APP`. The user's own rules naming APP still hold.")

        @ArgumentParser.Argument(help: "A desktop-file id.")
        var app: String

        func run() throws {
            let app = app.hasSuffix(".desktop") ? String(app.dropLast(8)) : app
            try Choices.change { $0.linksOff.insert(app) }
            print("web links no longer open in \(app)")
        }
    }

    struct On: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "on", abstract: "Open the web links APP owns in APP again.")

        @ArgumentParser.Argument(help: "A desktop-file id.")
        var app: String

        func run() throws {
            let app = app.hasSuffix(".desktop") ? String(app.dropLast(8)) : app
            try Choices.change { $0.linksOff.remove(app) }
            print("web links \(app) owns open in \(app)")
        }
    }
}

/// Today's date as a choice is dated (UTC).
enum Today {
    static var date: String { RememberedChoice.day(since: Int(time(nil))) }
}
