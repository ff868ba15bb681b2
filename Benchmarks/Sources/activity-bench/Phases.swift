// `activity-bench phases ADDRESS COUNT`: the calls of the round-trip figure, one kind at a time, for
// Benchmarks/activity-instructions.sh, which counts each process's instructions per call under
// callgrind. Registers app 0 with one scene, says "ready", then for each kind read from stdin makes
// COUNT such calls and says "done KIND".
import BenchSupport
import DBus
import Foundation
import WaypostContract

func phases(address: String, count: Int) async throws {
    let app = App(id: "io.waypost.bench.App0", bus: try await Connection(address: address))
    _ = try await app.call(Contract.Dispatcher1.registerApplication, app.id, ObjectPath("/app"), [String: Variant]())
    _ = try await app.call(Contract.Dispatcher1.declareScenes, [Contract.Declaration(id: "main", kind: .windowGroup).structure])
    _ = try await app.call(Contract.Dispatcher1.addScene, "window", "main")
    var next = perApp * apps
    var batch = 0
    say("ready")
    while let kind = readLine() {
        batch += 1
        for index in 0..<count {
            let scene = "phase-\(batch)-\(index)"
            switch kind {
            // AddScene then RemoveScene of one scene, as in the round-trip figure.
            case "pairs":
                _ = try await app.call(Contract.Dispatcher1.addScene, scene, "main")
                _ = try await app.call(Contract.Dispatcher1.removeScene, scene)
            // AddScene alone (the app's scenes grow to COUNT), then "removes" takes them away.
            case "adds": _ = try await app.call(Contract.Dispatcher1.addScene, "grown-\(index)", "main")
            case "removes": _ = try await app.call(Contract.Dispatcher1.removeScene, "grown-\(index)")
            case "saved", "current":
                next += 1
                _ = try await app.call(
                    Contract.Dispatcher1.setCurrentActivity, "window", activityType, activity(next, search: kind == "saved"))
            default: throw BenchError("unknown phase \(kind)")
            }
        }
        say("done \(kind)")
    }
}

/// A line on stdout at once (print's is buffered when stdout is a pipe).
private func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
