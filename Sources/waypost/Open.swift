import ArgumentParser
import DBus
import ExternalEvents
import FoundationEssentials
import Glibc
import Handoff
import WaypostContract

/// `waypost open URI…`: what a desktop entry's `Exec=` runs. Exits 0 only once every URI was delivered.
struct Open: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "open",
        abstract: "Open links through the dispatcher; exits 0 only once each was delivered.")

    @ArgumentParser.Argument(help: "The URIs to open.")
    var uris: [String]

    @Flag(name: .shortAndLong, help: "Print where each link went.")
    var verbose = false

    func run() async throws {
        let status = await Self.open(uris, verbose: verbose)
        if status != 0 { throw ExitCode(status) }
    }

    /// `open` with nothing but URIs and `-v`, recognised without the argument parser.
    struct PlainRequest {
        var uris: [String] = []
        var verbose = false

        init?(_ arguments: [String]) {
            guard arguments.first == "open", arguments.count > 1 else { return nil }
            for argument in arguments.dropFirst() {
                if argument == "-v" || argument == "--verbose" { verbose = true; continue }
                guard !argument.hasPrefix("-") else { return nil }
                uris.append(argument)
            }
            if uris.isEmpty { return nil }
        }
    }

    /// Opens each URI through the dispatcher, telling on stderr why any was not delivered, and
    /// with a desktop notification too unless stderr is a terminal: browsers run `xdg-open`, which
    /// runs this, and ignore its exit status, so that a failed link would otherwise go unseen.
    /// - Returns: the exit status: 0 when every URI was delivered, 1 when one was not, 69 without a bus.
    static func open(_ uris: [String], verbose: Bool) async -> Int32 {
        let connection: Connection
        do { connection = try await Connection.session() } catch {
            printError("waypost: cannot reach the session bus: \(BusClient.message(error))")
            return 69
        }
        let dispatcher: BusName
        do { dispatcher = try await BusClient.trusted.verifiedOwner(on: connection) } catch {
            printError("waypost: cannot open \(uris.joined(separator: " ")): \(error)")
            let links = uris.map { Contract.redacted(fileURI(ofPath: $0)) }.joined(separator: " ")
            await BusClient.notifyFailure(connection, body: "waypost: cannot open \(links): \(error)")
            connection.close()
            return 1
        }
        // Openers that spawn us pass the activation token in the environment (xdg-open, GIO's Exec path).
        let platformData = Contract.PlatformData(
            activationToken: getenv("XDG_ACTIVATION_TOKEN").map { String(cString: $0) },
            desktopStartupID: getenv("DESKTOP_STARTUP_ID").map { String(cString: $0) }
        ).variants
        // On the connection's thread: each reply resumes the loop here, with no wake of another thread.
        let failures = await withTaskExecutorPreference(connection.executor) {
            // Each failure in full for stderr, and cut (Contract.redacted) for the notification,
            // which a locked screen may show.
            var failures: [(full: String, redacted: String)] = []
            for uri in uris.map(fileURI(ofPath:)) {
                do {
                    let reply = try await connection.call(
                        destination: dispatcher, path: Contract.objectPath, interface: Contract.Dispatcher1.interface,
                        member: Contract.Dispatcher1.open.name, uri, platformData, timeout: BusClient.routingTimeout)
                    if verbose { print(BusClient.outcome(try reply.decode([String: Variant].self)).line(for: uri)) }
                } catch {
                    let failure = "waypost: cannot open \(uri): \(BusClient.message(error))"
                    printError(failure)
                    failures.append((failure, failure.replacing(uri, with: Contract.redacted(uri))))
                }
            }
            return failures
        }
        if !failures.isEmpty { await BusClient.notifyFailure(connection, body: failures.map(\.redacted).joined(separator: "\n")) }
        connection.close()
        return failures.isEmpty ? 0 : 1
    }
}

/// A local path as a `file://` URI, as GIO openers send it (xdg-open hands `Exec=… %U` a plain path);
/// anything with a URI scheme, or nothing like a path, is kept as it is. The path is made absolute
/// and canonical the way `gio open` does it (`g_canonicalize_filename`: `.` and `..` resolved by
/// name, not through symlinks), so the same file is the same URI however it was typed.
func fileURI(ofPath argument: String) -> String {
    let isPath = argument.hasPrefix("/") || argument.hasPrefix("./") || argument.hasPrefix("../")
        || (!argument.contains(":") && access(argument, F_OK) == 0)
    guard isPath else { return argument }
    var full = argument
    if !argument.hasPrefix("/") {
        guard let directory = getcwd(nil, 0) else { return argument }
        defer { free(directory) }
        full = String(cString: directory) + "/" + argument
    }
    var components: [Substring] = []
    for component in full.split(separator: "/") {
        switch component {
        case ".": continue
        case "..": _ = components.popLast()
        default: components.append(component)
        }
    }
    let absolute = "/" + components.joined(separator: "/")
    // RFC 3986: keep unreserved bytes and "/", percent-encode the rest.
    let kept = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~/".utf8)
    let hex = Array("0123456789ABCDEF".utf8)
    var encoded: [UInt8] = []
    for byte in absolute.utf8 {
        if kept.contains(byte) { encoded.append(byte) } else { encoded += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 15)]] }
    }
    return "file://" + String(decoding: encoded, as: UTF8.self)
}

/// `waypost continue TYPE`: hands a user activity to the app that lists its type.
struct Continue: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "continue",
        abstract: "Continue a user activity (Handoff, search result, shortcut) in the right scene.")

    @ArgumentParser.Argument(help: "The activity type, e.g. com.example.contact.show.")
    var type: String

    @Option(help: "The activity's targetContentIdentifier.")
    var target: String?

    @Option(help: "The activity's webpageURL.")
    var webpageURL: String?

    @Option(help: "The activity's title.")
    var title: String?

    @Option(help: "The activity's user info, a JSON object: {\"sizeId\": 2}.")
    var userInfo: String?

    @Flag(name: .shortAndLong, help: "Print where the activity went.")
    var verbose = false

    func validate() throws {
        _ = try parsedUserInfo()
    }

    /// `--user-info` as the contract's a{sv}; integers travel as `x`, other numbers as `d`.
    func parsedUserInfo() throws -> [String: Variant] {
        guard let userInfo else { return [:] }
        guard let info = try? JSONDecoder().decode([String: UserInfoValue].self, from: Data(userInfo.utf8)) else {
            throw ValidationError("--user-info must be a JSON object without null values, not \(userInfo)")
        }
        return UserInfoValue.variants(info)
    }

    /// The opener's activation token and startup id, from the environment as openers pass them.
    static var platformData: [String: Variant] {
        Contract.PlatformData(
            activationToken: getenv("XDG_ACTIVATION_TOKEN").map { String(cString: $0) },
            desktopStartupID: getenv("DESKTOP_STARTUP_ID").map { String(cString: $0) }
        ).variants
    }

    func run() async throws {
        let connection = try await BusClient.connect()
        let activity = Contract.ActivityDetails(
            targetContentIdentifier: target, webpageURL: webpageURL, title: title, userInfo: try parsedUserInfo())
        let reply = try await BusClient.callDispatcher(
            connection, Contract.Dispatcher1.continueActivity, type, activity.variants, Self.platformData,
            timeout: BusClient.routingTimeout, failing: "cannot continue \(type)")
        if verbose { print(BusClient.outcome(try reply.decode([String: Variant].self)).line(for: type)) }
    }
}

/// The short-lived commands' side of the bus.
enum BusClient {
    /// Longer than the daemon's launch and delivery timeouts together, so the daemon reports them.
    static let routingTimeout: Duration = .seconds(30)

    static func connect() async throws -> Connection {
        do { return try await Connection.session() } catch {
            printError("waypost: cannot reach the session bus: \(message(error))")
            throw ExitCode(69)
        }
    }

    /// Whose process may own the dispatcher's name: the program the installed service files start,
    /// or this very program.
    static var trusted: Contract.TrustedDispatcher {
        let own = Contract.TrustedDispatcher.program(ofProcess: UInt32(getpid()))
        return Contract.TrustedDispatcher.installed().adding(program: own, namedBy: "this waypost")
    }

    /// The dispatcher's unique name once its program is checked (started by activation when needed).
    /// - Throws: `ExitCode(1)` after saying on stderr who owns the name instead, or why none does.
    static func dispatcher(_ connection: Connection, failing what: String? = nil) async throws -> BusName {
        do { return try await trusted.verifiedOwner(on: connection) } catch {
            printError("waypost: " + (what.map { "\($0): " } ?? "") + error.description)
            throw ExitCode(1)
        }
    }

    /// Calls one of the dispatcher's methods, on the checked owner of its name (`dispatcher`); when
    /// that fails, says why on stderr (after `what` failed, when given) and exits with status 1.
    static func callDispatcher<each Argument: BusValue>(
        _ connection: Connection, _ member: Contract.Member, _ arguments: repeat each Argument,
        timeout: Duration = .seconds(25), failing what: String? = nil
    ) async throws -> Message {
        let owner = try await dispatcher(connection, failing: what)
        do {
            return try await connection.call(
                destination: owner, path: Contract.objectPath, interface: Contract.Dispatcher1.interface,
                member: member.name, repeat each arguments, timeout: timeout)
        } catch {
            printError("waypost: " + (what.map { "\($0): " } ?? "") + message(error))
            throw ExitCode(1)
        }
    }

    /// Tells the user with a desktop notification (`org.freedesktop.Notifications`, started by the
    /// bus when it is activatable) that a link went nowhere, unless stderr is a terminal, where the
    /// person who ran the command reads it already. Waits for the server's answer (so that the
    /// message is out before the process exits), at most a few seconds; a failure is ignored. The
    /// link is another's words: shown as text (`OutsideText`), its markup escaped.
    static func notifyFailure(_ connection: Connection, body: String) async {
        guard isatty(STDERR_FILENO) == 0 else { return }
        _ = try? await connection.call(
            destination: "org.freedesktop.Notifications", path: "/org/freedesktop/Notifications",
            interface: "org.freedesktop.Notifications", member: "Notify", "Waypost", UInt32(0), "dialog-warning",
            "A link could not be opened", OutsideText.escapingMarkup(OutsideText.shown(body, limit: 4096, lines: true)), [String](),
            [String: Variant](), Int32(-1), timeout: .seconds(5))
    }

    /// The dispatcher's own sentence when it sent one; the bus error otherwise.
    static func message(_ error: any Error) -> String {
        guard let error = error as? BusError else { return "\(error)" }
        if let failure = Contract.Failure(error.name) { return "\(error.message) [\(failure.rawValue)]" }
        return error.description
    }

    /// A dictionary the dispatcher sent, read as the contract says.
    /// - Throws: `ExitCode(1)` after saying on stderr how it breaks the contract.
    static func decode<Value>(_ what: String, _ read: () throws(Contract.KeyError) -> Value) throws -> Value {
        do { return try read() } catch {
            printError("waypost: the dispatcher's \(what) breaks the contract: \(error)")
            throw ExitCode(1)
        }
    }

    /// An outcome for a line of text: what cannot be read shows as "?", as a missing key does.
    static func outcome(_ fields: [String: Variant]) -> Contract.RoutingOutcome {
        (try? Contract.RoutingOutcome(fields)) ?? Contract.RoutingOutcome()
    }
}

extension Contract.RoutingOutcome {
    /// One line for people: `event → app scene [action, rule]`.
    func line(for event: String) -> String {
        let destination = sceneID.map { " scene \($0)" } ?? declarationID.map { " new \($0)" } ?? ""
        return "\(event) → \(appID ?? "?")\(destination) [\(action?.rawValue ?? "?"), \(rule?.rawValue ?? "?")]"
    }
}
