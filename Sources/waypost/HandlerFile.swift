import ArgumentParser
import Installation

/// `waypost handler-file KIND --program PATH`: one of the files `waypost install` writes, for a
/// package. `make install` renders them with it, so the packaged files and the installer's are the
/// same text from the same code (`HandlerFiles`).
struct HandlerFile: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "handler-file",
        abstract: "Print one of the files waypost install writes, for packaging.",
        discussion: """
            desktop-entry is io.waypost.Dispatcher.desktop with no MimeType= types (waypost install \
            --user writes the user's own copy, listing the schemes of opted-in apps); dbus-service is \
            the D-Bus activation file io.waypost.Dispatcher.service; systemd-unit is the systemd user \
            unit waypost.service. make install puts them below its PREFIX.
            """)

    enum Kind: String, ExpressibleByArgument, CaseIterable {
        case desktopEntry = "desktop-entry", dbusService = "dbus-service", systemdUnit = "systemd-unit"
    }

    @Argument(help: "Which file: desktop-entry, dbus-service or systemd-unit.")
    var kind: Kind

    @Option(help: "The installed program's absolute path, written into the Exec lines.")
    var program: String

    func validate() throws {
        if !program.hasPrefix("/") { throw ValidationError("--program must be an absolute path, not '\(program)'") }
    }

    func run() {
        let text = switch kind {
        case .desktopEntry: HandlerFiles.desktopEntry(program: program, mimeTypes: [])
        case .dbusService: HandlerFiles.dbusService(program: program)
        case .systemdUnit: HandlerFiles.systemdUnit(program: program)
        }
        print(text, terminator: "")
    }
}
