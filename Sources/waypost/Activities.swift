import ArgumentParser
import DBus
import FoundationEssentials
import Glibc
import WaypostContract

/// `waypost activities`: what apps saved for search, found, continued and deleted from the terminal.
struct Activities: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Search, list, continue and delete the user activities apps saved for search.",
        subcommands: [Search.self, List.self, ContinueSaved.self, Delete.self])

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, json
    }

    struct Search: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Saved activities whose title or keywords have words starting with each of WORDS, best first.")

        @ArgumentParser.Argument(help: "The words to look for.")
        var words: [String]

        @Option(help: "At most this many results.")
        var limit: UInt32 = 20

        @Option(help: "Output format: text (a table) or json (one object per line).")
        var format: Format = .text

        func run() async throws {
            let connection = try await BusClient.connect()
            let reply = try await BusClient.callDispatcher(connection, Contract.Dispatcher1.searchActivities, words, limit)
            try Activities.print(reply, format: format)
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Saved activities, most recently used first.")

        @Option(help: "Only this app's (a desktop-file id without .desktop).")
        var app: String?

        @Option(help: "Output format: text (a table) or json (one object per line).")
        var format: Format = .text

        func run() async throws {
            let connection = try await BusClient.connect()
            let reply = try await BusClient.callDispatcher(connection, Contract.Dispatcher1.listSavedActivities, app ?? "")
            try Activities.print(reply, format: format)
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

    /// A JSON line per activity, or a table with a header.
    static func print(_ reply: Message, format: Format) throws {
        let raw = try reply.decode([[String: Variant]].self)
        let saved = try BusClient.decode("results") { () throws(Contract.KeyError) in
            try raw.map { fields throws(Contract.KeyError) in try Contract.SavedActivity(fields) }
        }
        switch format {
        case .json:
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            for activity in saved {
                var object: [String: JSONValue] = [
                    "id": .string(activity.id), "app": .string(activity.appID), "appName": .string(activity.appName),
                    "type": .string(activity.activityType), "lastUsed": .integer(activity.lastUsed),
                ]
                for (key, value) in activity.activity { object[key] = JSONValue(value) }
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
