import ArgumentParser
import DBus
import Desktop
import Glibc
import Installation
import WaypostContract

/// `--user` (default) or `--system [--prefix DIR]`, shared by install, uninstall, refresh and doctor.
struct LayoutOptions: ParsableArguments {
    @Flag(help: "Install for this user: $XDG_DATA_HOME and $XDG_CONFIG_HOME/mimeapps.list (the default).")
    var user = false

    @Flag(help: "Install for everyone below --prefix (its applications/mimeapps.list holds the defaults).")
    var system = false

    @Option(help: "The data directory of a system install.")
    var prefix = "/usr/local/share"

    func validate() throws {
        if user && system { throw ValidationError("choose one of --user and --system") }
        if !system && prefix != "/usr/local/share" { throw ValidationError("--prefix goes with --system") }
        if !prefix.hasPrefix("/") { throw ValidationError("--prefix must be an absolute path, not '\(prefix)'") }
    }

    /// The user's layout comes from GLib's XDG directories, so it needs GIO.
    func layout() throws(GIOLoadError) -> InstallLayout { system ? .system(prefix: prefix) : try .user() }
    var command: String { system ? "waypost install --system --prefix \(prefix)" : "waypost install --user" }

    /// Where the browser extension goes (the user's: Firefox reads `~/.mozilla`, so HOME too).
    func browserLayout() throws(GIOLoadError) -> BrowserLayout {
        system ? .system(prefix: prefix) : .user(try XDGDirectories(), home: getenv("HOME").map { String(cString: $0) } ?? "")
    }
}

/// Runs one installer operation and prints its report; a failure exits 1 with the reason.
private func runInstaller(
    _ what: String, quietWhenUnchanged: Bool = false, _ body: () throws(InstallError) -> Installer.Report
) throws {
    do {
        let report = try body()
        for change in report.changes { print(change) }
        for warning in report.warnings { printError("waypost: warning: \(warning)") }
        if report.changes.isEmpty && !quietWhenUnchanged { print("\(what): nothing to change") }
    } catch {
        printError("waypost \(what): \(error)")
        if case .file = error { printError("waypost \(what): nothing was changed") }
        if case .damagedEntry = error { printError("waypost \(what): nothing was changed") }
        throw ExitCode(1)
    }
}

/// What needs GIO (the catalog, the XDG directories); without it says so and exits 69 (EX_UNAVAILABLE).
private func withDesktop<Value>(_ what: String, _ body: () throws(GIOLoadError) -> Value) throws -> Value {
    do { return try body() } catch {
        printError("waypost \(what): \(error)")
        throw ExitCode(69)
    }
}

private func installedProgram() throws -> String {
    guard let program = Files.currentExecutable() else {
        printError("waypost: cannot tell where this program is (/proc/self/exe)")
        throw ExitCode(1)
    }
    return program
}

struct Install: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "install",
        abstract: "Make the desktop hand links of opted-in apps' schemes to Waypost.",
        discussion: """
            Writes io.waypost.Dispatcher.desktop, the D-Bus activation file and a systemd user unit \
            (absolute paths to this program), makes Waypost the default in mimeapps.list for every \
            scheme an X-Waypost=true entry declares (and for its file types it is already the default \
            of), and records the previous defaults. Running it again changes nothing. \
            With --web, http and https links go to Waypost too: a link whose domain an installed app \
            owns (its entry claims the domain in X-Waypost-Associated-Domains and the domain's \
            association names the app) opens in that app; every other web link goes at once to the \
            browser that was the default, which is recorded. `waypost uninstall --web` gives http and \
            https back byte for byte.
            """)
    @OptionGroup var options: LayoutOptions

    @Flag(help: "Take http and https links too (universal links), recording the user's browser for every other link.")
    var web = false

    @Flag(help: "With --web: local HTML files too (text/html).")
    var html = false

    @Flag(help: "Also the browser extension for Chromium, Chrome and Firefox: its files and the browsers' native-messaging host manifests.")
    var browser = false

    func validate() throws {
        if html && !web { throw ValidationError("--html goes with --web") }
    }

    func run() throws {
        let program = try installedProgram()
        let installer = try withDesktop("install") { () throws(GIOLoadError) in try Installer(layout: options.layout(), program: program) }
        try runInstaller("install") { () throws(InstallError) in try installer.install(web: web, html: html) }
        if browser {
            let layout = try withDesktop("install") { () throws(GIOLoadError) in try options.browserLayout() }
            try runInstaller("install --browser") { () throws(InstallError) in try installer.installBrowser(layout) }
        }
    }
}

struct Refresh: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "refresh",
        abstract: "Hand over the schemes of apps installed since, and give back those of apps removed.")
    @OptionGroup var options: LayoutOptions

    func run() throws {
        let program = try installedProgram()
        let installer = try withDesktop("refresh") { () throws(GIOLoadError) in try Installer(layout: options.layout(), program: program) }
        try runInstaller("refresh") { () throws(InstallError) in try installer.refresh() }
    }
}

struct Uninstall: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "uninstall",
        abstract: "Remove Waypost's entries and put mimeapps.list back as it was.")
    @OptionGroup var options: LayoutOptions

    @Flag(help: "Give back only http, https and text/html (what install --web took); schemes stay with Waypost.")
    var web = false

    @Flag(help: "Remove only the browser extension's files and host manifests (plain uninstall removes them too).")
    var browser = false

    func validate() throws {
        if web && browser { throw ValidationError("choose one of --web and --browser") }
    }

    func run() throws {
        let program = try installedProgram()
        let installer = try withDesktop("uninstall") { () throws(GIOLoadError) in try Installer(layout: options.layout(), program: program) }
        let layout = try withDesktop("uninstall") { () throws(GIOLoadError) in try options.browserLayout() }
        if !browser {
            try runInstaller("uninstall") { () throws(InstallError) in try installer.uninstall(webOnly: web) }
        }
        if !web {
            // Plain uninstall mentions the extension only when there was one to remove.
            try runInstaller("uninstall --browser", quietWhenUnchanged: !browser) { () throws(InstallError) in try installer.uninstallBrowser(layout) }
        }
    }
}

struct Doctor: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check how links reach Waypost and say how to fix what is wrong (exit 1 then).")
    @OptionGroup var options: LayoutOptions

    func run() async throws {
        let doctor = try withDesktop("doctor") { () throws(GIOLoadError) in
            try Installation.Doctor(layout: options.layout(), installCommand: options.command)
        }
        let browser = try withDesktop("doctor") { () throws(GIOLoadError) in try options.browserLayout() }
        let findings = doctor.check(activatable: await Self.activatable()) + [await Self.ownerFinding()]
            + doctor.portalFindings(choices: await Self.portalChoices(for: doctor.handedOverSchemes()))
            + doctor.browserFindings(browser, program: try installedProgram())
        for finding in findings {
            let mark = switch finding.severity { case .ok: "ok  "; case .note: "note"; case .problem: "FIX " }
            print("\(mark) \(finding.summary)")
            if let fix = finding.fix { print("     → \(fix)") }
        }
        let problems = findings.filter { $0.severity == .problem }.count
        print(problems == 0 ? "no problems found" : "\(problems) problem\(problems == 1 ? "" : "s") found")
        if problems > 0 { throw ExitCode(1) }
    }

    /// Who owns the dispatcher's name now (`activatable()` started it if nobody did): the installed
    /// program, or another process that holds it and receives what apps and openers send there.
    static func ownerFinding() async -> Finding {
        guard let connection = try? await Connection.session() else {
            return Finding(.note, "no session bus to ask who owns \(Contract.busName)")
        }
        defer { connection.close() }
        do {
            let owner = try await BusClient.trusted.verifiedOwner(on: connection, activating: false)
            let pid = (try? await connection.processID(of: owner)) ?? 0
            return Finding(.ok, "\(Contract.busName) is owned by pid \(pid), running \(Contract.TrustedDispatcher.program(ofProcess: pid))")
        } catch {
            switch error {
            case .untrusted(_, let pid, _, _), .notInstalled(_, let pid, _, _):
                return Finding(.problem, error.description, fix: "stop process \(pid) (`kill \(pid)`), then open a link to start the dispatcher")
            case .bus(let error):
                return Finding(.note, "nobody owns \(Contract.busName) now (\(BusClient.message(error)))")
            }
        }
    }

    /// What the OpenURI portal remembered for each scheme type (its permission store's
    /// `desktop-used-apps`); nil without a bus, or where no permission store runs or can be started
    /// (doctor starts no part of the portal a desktop lacks).
    static func portalChoices(for types: [String]) async -> [String: Installation.Doctor.PortalChoices]? {
        guard !types.isEmpty, let connection = try? await Connection.session() else { return nil }
        defer { connection.close() }
        let store: BusName = "org.freedesktop.impl.portal.PermissionStore"
        let activatable = try? await connection.call(
            destination: .bus, path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus", member: "ListActivatableNames"
        ).decode([String].self)
        let running = (try? await connection.nameOwner(of: store)) != nil
        guard running || activatable?.contains(store.rawValue) == true else { return nil }
        var choices: [String: Installation.Doctor.PortalChoices] = [:]
        for type in types {
            do {
                let (permissions, data) = try await connection.call(
                    destination: store, path: "/org/freedesktop/impl/portal/PermissionStore",
                    interface: "org.freedesktop.impl.portal.PermissionStore", member: "Lookup", "desktop-used-apps", type
                ).decode([String: [String]].self, Variant.self)
                // Each app's permissions: [the chosen app, how often, the threshold].
                let remembered = permissions.compactMapValues(\.first)
                let alwaysAsk = (try? data.decode(as: [String: Variant].self))?["always-ask"].flatMap { try? $0.decode(as: Bool.self) } ?? false
                choices[type] = Installation.Doctor.PortalChoices(remembered: remembered, alwaysAsk: alwaysAsk)
            } catch let error as BusError where error.name.rawValue == "org.freedesktop.portal.Error.NotFound" {
                choices[type] = Installation.Doctor.PortalChoices(remembered: [:], alwaysAsk: false)
            } catch {
                printError("waypost doctor: the portal's permission store did not answer for \(type): \(BusClient.message(error))")
            }
        }
        return choices
    }

    /// Whether the session bus can start the dispatcher: asks it to (`StartServiceByName`), which
    /// is what the first link would do anyway, and which also rereads activation directories created
    /// after the bus started (`ListActivatableNames` would not). Nil without a bus.
    static func activatable() async -> Bool? {
        guard let connection = try? await Connection.session() else { return nil }
        do {
            _ = try await connection.call(
                destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                member: "StartServiceByName", Contract.busName.rawValue, UInt32(0), timeout: .seconds(10))
            return true
        } catch {
            printError("waypost doctor: the bus could not start \(Contract.busName): \(BusClient.message(error))")
            return false
        }
    }
}
