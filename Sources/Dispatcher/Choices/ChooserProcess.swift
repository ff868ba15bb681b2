public import Desktop
public import Planning
import Handoff

/// The chooser window as a process of its own: `waypost choose …` (GTK 4, loaded by that process
/// at run time, never by the daemon), raised with the opener's token, answering one line.
public struct ChooserProcess: ChooserWindows {
    /// The `waypost` program.
    public let program: String

    public init(program: String) { self.program = program }

    public func ask(_ request: ChoiceRequest, platformData: LaunchPlatformData) async -> ChooserAnswer {
        // One token under both names, as GIO's launches pass it: GDK reads the one of its backend.
        let token = [platformData.activationToken, platformData.desktopStartupID].lazy.compactMap { $0 }
            .first { !$0.isEmpty && !$0.contains("\0") }
        let environment: [String: String?] = ["XDG_ACTIVATION_TOKEN": token, "DESKTOP_STARTUP_ID": token]
        guard let ran = await Files.runAside(program, Self.arguments(for: request), environment: environment) else {
            return .unavailable("\(program) choose could not be started")
        }
        return Self.answer(status: ran.status, output: ran.output, errors: ran.errors)
    }

    /// The command line that shows `request`.
    static func arguments(for request: ChoiceRequest) -> [String] {
        var arguments = ["choose", "--subject", request.subject, "--scope", request.scope.description]
        if let opener = request.opener { arguments += ["--opener", opener] }
        for candidate in request.candidates { arguments += ["--candidate", candidate.description] }
        return arguments
    }

    /// Reads the chooser's answer: `pick\tDEST\tonce|always\tany|opener\tTOKEN` or `cancel` on
    /// standard output with status 0; anything else means no chooser could be shown.
    static func answer(status: Int32, output: String, errors: String) -> ChooserAnswer {
        let line = output.split(separator: "\n").first.map(String.init) ?? ""
        guard status == 0 else {
            let why = errors.split(separator: "\n").first.map { OutsideText.shown(String($0), limit: 300) } ?? "no reason given"
            return .unavailable("the chooser window could not be shown (status \(status)): \(why)")
        }
        if line == "cancel" { return .cancelled }
        let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        guard fields.count == 5, fields[0] == "pick", let destination = NamedDestination(fields[1]),
              ["once", "always"].contains(fields[2]), ["any", "opener"].contains(fields[3])
        else { return .unavailable("the chooser answered \(OutsideText.shown(line, limit: 300))") }
        return .picked(ChooserPick(
            destination: destination, always: fields[2] == "always", forOpenerOnly: fields[3] == "opener",
            token: fields[4].isEmpty ? nil : fields[4]))
    }
}
