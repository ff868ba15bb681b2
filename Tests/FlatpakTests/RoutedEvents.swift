// Watching what the session does: the lines `waypost monitor` prints, each awaited within a deadline.
import Foundation
import TestSupport

/// The lines `waypost monitor` prints, read in order:
/// `URI → APP scene SCENE [ACTION, RULE] N µs (opened by OPENER)`, or `URI ✗ ERROR: REASON (opened by OPENER)`.
final class RoutedEvents: Sendable {
    private let process: ChildProcess
    private let busLog: @Sendable () -> String

    init(process: ChildProcess, busLog: @escaping @Sendable () -> String) {
        self.process = process
        self.busLog = busLog
    }

    /// The next line about `uri` (earlier lines about other events are skipped), within 30 s.
    func line(for uri: String) async throws -> String {
        let process = self.process
        let line = try await withDeadline("waypost monitor shows \(uri)", context: busLog) { () async -> String? in
            while let line = await process.nextLine() {
                if line.hasPrefix(uri + " ") { return line }
            }
            return nil
        }
        guard let line else { throw TestFailure("waypost monitor ended before it showed \(uri)\n\(busLog())") }
        return line
    }
}
