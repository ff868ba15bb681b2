public import Desktop
import Handoff
public import Planning

/// The chooser window as a process of its own: `waypost choose --serve` (GTK 4, loaded by that
/// process at run time, never by the daemon), started at the first request and kept between
/// requests, so that a window appears without a process start and GTK's load each time; it ends
/// once no request came for `idle`. Each request is a line; each answer is a line.
public actor ChooserProcess: ChooserWindows {
    /// The `waypost` program.
    public let program: String
    /// How long the process is kept without a request (it holds GTK: some 100 MiB).
    public let idle: Duration
    private var process: LineProcess?
    /// Counts requests, so that an idle timer started before the last one does nothing.
    private var requests = 0

    public init(program: String, idle: Duration = .seconds(300)) {
        (self.program, self.idle) = (program, idle)
    }

    public func ask(_ request: ChoiceRequest, platformData: LaunchPlatformData) async -> ChooserAnswer {
        requests += 1
        defer { endWhenIdle() }
        let running: LineProcess
        switch await started() {
        case .success(let process): running = process
        case .failure(let failure): return .unavailable(failure.why)
        }
        guard running.send(Self.line(for: request, token: platformData.activationToken ?? platformData.desktopStartupID)) else {
            process = nil
            return .unavailable("the chooser window's process ended")
        }
        while let line = await running.nextLine() {
            if let answer = Self.answer(line) { return answer }
        }
        process = nil
        return .unavailable("the chooser window's process ended")
    }

    /// The running process, started (and its `ready` awaited) when there is none.
    private func started() async -> Result<LineProcess, NoChooser> {
        if let process, !process.hasEnded { return .success(process) }
        let started: LineProcess
        do { started = try LineProcess(program, ["choose", "--serve"]) } catch { return .failure(NoChooser(why: error.description)) }
        // Until `ready`, anything it prints is why it cannot show a window (no display, no GTK 4).
        var said: [String] = []
        while let line = await started.nextLine() {
            if line == "ready" {
                process = started
                return .success(started)
            }
            said.append(line)
        }
        let why = said.last.map { OutsideText.shown($0, limit: 300) } ?? "it ended without a word"
        return .failure(NoChooser(why: "the chooser window could not be shown: \(why)"))
    }

    /// Why no chooser window can be shown.
    struct NoChooser: Error {
        let why: String
    }

    private func endWhenIdle() {
        let asked = requests
        let idle = idle
        Task {
            try? await Task.sleep(for: idle)
            self.end(ifStill: asked)
        }
    }

    private func end(ifStill asked: Int) {
        guard asked == requests, let process else { return }
        process.close()
        self.process = nil
    }

    /// A request as the chooser reads it: `TOKEN\tSUBJECT\tSCOPE\tOPENER\tDEST…`, no field holding a
    /// tab or a line break (an activity's title may: they become spaces).
    static func line(for request: ChoiceRequest, token: String?) -> String {
        func field(_ text: String) -> String {
            var scalars = String.UnicodeScalarView()
            for scalar in text.unicodeScalars { scalars.append(scalar.value < 0x20 || scalar.value == 0x7F ? " " : scalar) }
            return String(scalars)
        }
        return ([token ?? "", request.subject, request.scope.description, request.opener ?? ""]
            + request.candidates.map(\.description)).map(field).joined(separator: "\t")
    }

    /// Reads an answer: `pick\tDEST\tonce|always\tany|opener\tTOKEN`, `cancel`, or `error\tWHY`;
    /// nil for any other line (GTK's warnings share the stream).
    static func answer(_ line: String) -> ChooserAnswer? {
        if line == "cancel" { return .cancelled }
        let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        if fields.first == "error" {
            return .unavailable("the chooser refused the request: \(OutsideText.shown(fields.dropFirst().joined(separator: " "), limit: 300))")
        }
        guard fields.count == 5, fields[0] == "pick" else { return nil }
        guard let destination = NamedDestination(fields[1]), ["once", "always"].contains(fields[2]), ["any", "opener"].contains(fields[3])
        else { return .unavailable("the chooser answered \(OutsideText.shown(line, limit: 300))") }
        return .picked(ChooserPick(
            destination: destination, always: fields[2] == "always", forOpenerOnly: fields[3] == "opener",
            token: fields[4].isEmpty ? nil : fields[4]))
    }
}
