import ArgumentParser
import AssociationSources
import DBus
import Desktop
import ExternalEvents
import FoundationEssentials
import Glibc
import Planning
import WaypostContract

/// `waypost activities`: what apps saved for search, found, continued and deleted from the terminal.
struct Activities: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "activities",
        abstract: "Search, list, continue and delete the user activities apps saved for search; choose who continues a type.",
        subcommands: [Search.self, List.self, ContinueSaved.self, Delete.self, Choose.self])

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, json
    }

    struct Search: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "search",
            abstract: "Saved activities whose title or keywords have words starting with each of WORDS, best first.",
            discussion: """
                Words are runs of letters and digits, each matched as the start of a word, case and \
                accents ignored; a repeated word, or one that begins another, counts once. A search \
                takes at most 8 words of at most 256 bytes, and returns no more than 1 MiB of saved \
                activities after the first.
                """)

        @ArgumentParser.Argument(help: "The words to look for.")
        var words: [String]

        @Option(help: "At most this many results (at most 1,000).")
        var limit: UInt32 = 20

        @Option(help: "Output format: text (a table) or json (one object per line).")
        var format: Format = .text

        func run() async throws {
            let connection = try await BusClient.connect()
            let reply = try await BusClient.callDispatcher(connection, Contract.Dispatcher1.searchActivities, words, limit)
            try Activities.print(Activities.saved(try reply.decode([[String: Variant]].self)), format: format)
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "Saved activities, most recently used first.",
            discussion: """
                Read page by page (ListSavedActivitiesPage: 100 activities, or 1 MiB of them, a \
                page), so that a store of any size is listed without the dispatcher holding it all. \
                JSON lines are printed as each page arrives; the table once all are read.
                """)

        @Option(help: "Only this app's (a desktop-file id without .desktop).")
        var app: String?

        @Option(help: "At most this many, the most recently used (0: every one).")
        var limit: Int = 0

        @Option(help: "Output format: text (a table) or json (one object per line).")
        var format: Format = .text

        func validate() throws {
            guard limit >= 0 else { throw ValidationError("--limit must be 0 (every one) or more") }
        }

        func run() async throws {
            let connection = try await BusClient.connect()
            var (listed, after): ([Contract.SavedActivity], String) = ([], "")
            repeat {
                let wanted = limit == 0 ? 0 : UInt32(min(limit - listed.count, Int(UInt32.max)))
                let reply = try await BusClient.callDispatcher(
                    connection, Contract.Dispatcher1.listSavedActivitiesPage, app ?? "", after, wanted)
                let (results, next) = try reply.decode([[String: Variant]].self, String.self)
                var page = try Activities.saved(results)
                if limit > 0 { page = Array(page.prefix(limit - listed.count)) }
                if format == .json { try Activities.print(page, format: .json) }
                listed += page
                after = next
            } while !after.isEmpty && (limit == 0 || listed.count < limit)
            if format == .text { try Activities.print(listed, format: .text) }
        }
    }

    struct ContinueSaved: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "continue", abstract: "Continue a saved activity (an ID from search or list) in the right scene.")

        @ArgumentParser.Argument(help: "The saved activity's id.")
        var id: String

        @Flag(name: .shortAndLong, help: "Print where the activity went.")
        var verbose = false

        func run() async throws {
            let connection = try await BusClient.connect()
            let reply = try await BusClient.callDispatcher(
                connection, Contract.Dispatcher1.continueSavedActivity, id, Continue.platformData,
                timeout: BusClient.routingTimeout, failing: "cannot continue saved activity \(id)")
            if verbose { Swift.print(BusClient.outcome(try reply.decode([String: Variant].self)).line(for: "activity \(id)")) }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete",
            abstract: "Delete an app's saved activities: those with the given persistent identifiers, or all of them.")

        @Option(help: "The app whose saved activities to delete.")
        var app: String

        @ArgumentParser.Argument(help: "Persistent identifiers; none deletes every saved activity of the app.")
        var identifiers: [String] = []

        func run() async throws {
            let connection = try await BusClient.connect()
            _ = try await BusClient.callDispatcher(
                connection, Contract.Dispatcher1.forgetSavedActivities, app, identifiers, failing: "cannot delete")
        }
    }

    struct Choose: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "choose",
            abstract: "Choose the app that continues an activity type when several apps list it and its publisher cannot.",
            discussion: """
                A saved activity continues in the app that published it, as long as that app's desktop \
                entry lists its type. Otherwise, and for an activity from elsewhere, the one installed app \
                that lists the type continues it; when several do, the app chosen here. Without a choice \
                the user is asked in a chooser, or, where none can be shown, it goes nowhere: the dispatcher \
                answers io.waypost.Error.AppNotChosen, and a search result shows a notification saying so. \
                The choice is remembered with the chooser's ("waypost choices set activity-type:TYPE APP" \
                writes the same; a [Default Applications] line for x-waypost-activity/TYPE in mimeapps.list \
                is still honoured after it). Without APP, lists the apps that list TYPE.
                """)

        @ArgumentParser.Argument(help: "The activity type (org.example.contact.show).")
        var type: String

        @ArgumentParser.Argument(help: "The app to continue it (a desktop-file id, with or without .desktop).")
        var app: String?

        func run() throws {
            guard ActivityChoice.contentType(forActivityType: type) != nil else {
                printError("waypost activities choose: \"\(type)\" cannot carry a choice (letters, digits and .+-_ only, at most 255 bytes)")
                throw ExitCode(64)
            }
            let catalog: ApplicationCatalog
            let directories: XDGDirectories
            do { (catalog, directories) = (try ApplicationCatalog(), try XDGDirectories()) } catch {
                printError("waypost activities choose: \(error)")
                throw ExitCode(69)
            }
            let candidates = catalog.applications(forActivityType: type).map(\.id)
            guard let app = app.map({ $0.hasSuffix(".desktop") ? String($0.dropLast(8)) : $0 }) else {
                guard !candidates.isEmpty else { return Swift.print("no installed app lists \(type) in X-Waypost-Activity-Types") }
                let remembered = try? ChoiceFile(configHome: directories.configHome).read().book
                    .choice(for: .activityType(type), opener: nil)?.destination.app
                let chosen = remembered ?? catalog.chosenApplicationID(forActivityType: type)
                for candidate in candidates { Swift.print(candidate == chosen ? "\(candidate) (chosen)" : candidate) }
                return
            }
            guard candidates.contains(app) else {
                printError("waypost activities choose: \(app) does not list \(type) in X-Waypost-Activity-Types"
                    + (candidates.isEmpty ? "; no installed app does" : "; these do: \(candidates.joined(separator: ", "))"))
                throw ExitCode(1)
            }
            do {
                let choice = RememberedChoice(scope: .activityType(type), destination: NamedDestination(app: app), made: Today.date)
                _ = try ChoiceFile(configHome: directories.configHome).change { $0.remember(choice) }
            } catch {
                printError("waypost activities choose: \(error)")
                throw ExitCode(1)
            }
            Swift.print("activities of type \(type) continue in \(app) when their publisher cannot")
        }
    }

    /// The activities a reply's `results` carry.
    static func saved(_ raw: [[String: Variant]]) throws -> [Contract.SavedActivity] {
        try BusClient.decode("results") { () throws(Contract.KeyError) in
            try raw.map { fields throws(Contract.KeyError) in try Contract.SavedActivity(fields) }
        }
    }

    /// A JSON line per activity, or a table with a header.
    static func print(_ saved: [Contract.SavedActivity], format: Format) throws {
        switch format {
        case .json:
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            for activity in saved {
                var object: [String: UserInfoValue] = [
                    "id": .string(activity.id), "app": .string(activity.appID), "appName": .string(activity.appName),
                    "type": .string(activity.activityType), "lastUsed": .integer(activity.lastUsed),
                ]
                for (key, value) in activity.activity { object[key] = UserInfoValue(value) }
                Swift.print(String(decoding: try encoder.encode(object), as: UTF8.self))
            }
        case .text:
            guard !saved.isEmpty else { return Swift.print("no saved activities") }
            let rows = [["ID", "APP", "TITLE", "LAST USED"]] + saved.map { activity in
                let title = (try? activity.activity["title"]?.decode(as: String.self)) ?? activity.activityType
                return [activity.id, activity.appName, title, Self.time(activity.lastUsed)]
            }
            let widths = (0..<4).map { column in rows.map { $0[column].count }.max() ?? 0 }
            for row in rows {
                Swift.print(row.enumerated().map { column, text in
                    column == 3 ? text : text + String(repeating: " ", count: widths[column] - text.count)
                }.joined(separator: "  "))
            }
        }
    }

    /// Local time, `2026-11-23 23:05`.
    static func time(_ seconds: Int64) -> String {
        var time = time_t(seconds)
        var parts = tm()
        localtime_r(&time, &parts)
        let pad = { (value: Int32) in value < 10 ? "0\(value)" : "\(value)" }
        return "\(parts.tm_year + 1900)-\(pad(parts.tm_mon + 1))-\(pad(parts.tm_mday)) \(pad(parts.tm_hour)):\(pad(parts.tm_min))"
    }
}
