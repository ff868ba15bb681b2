import Foundation
import Glibc
public import WaypostKit

/// What the sample apps share: their "windows" are lines on stdout, and each event a scene
/// receives is also appended as a JSON line to `$WAYPOST_SAMPLE_LOG`, so that scripts and tests can
/// check what every scene got.
public struct SampleConsole: Sendable {
    public let app: String
    let logPath: String?

    public init(app: String) {
        self.app = app
        logPath = ProcessInfo.processInfo.environment["WAYPOST_SAMPLE_LOG"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Prints a line of the app's state.
    public func show(_ line: String) {
        print("[\(app) \(getpid())] \(line)")
        fflush(nil)  // all streams: stdout is a C global Swift 6 will not touch
    }

    /// Records that `scene` received something (`open-url`, `continue-activity`, `create-scene`…).
    public func record(scene: String, _ event: String, _ fields: [String: String] = [:]) {
        var record: [String: Any] = fields
        record["app"] = app
        record["scene"] = scene
        record["event"] = event
        record["pid"] = Int(getpid())
        append(record)
    }

    /// Appends one JSON line with O_APPEND, so that lines of several processes never interleave.
    func append(_ record: [String: Any]) {
        guard let logPath,
            var data = try? JSONSerialization.data(withJSONObject: record, options: [.sortedKeys])
        else { return }
        data.append(UInt8(ascii: "\n"))
        let fd = open(logPath, O_WRONLY | O_APPEND | O_CREAT, 0o644)
        guard fd >= 0 else { return show("cannot write \(logPath): errno \(errno)") }
        defer { close(fd) }
        _ = data.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    }

    /// Starts the app, records `ready`, and runs until the session bus goes away; exits 69 with the
    /// reason when it cannot register, unless it was started with links (`Exec=… %u`, when the desktop
    /// hands links to the app itself): then it opens them without a dispatcher, as a real app would.
    public func run(_ application: Application) async -> Never {
        let links = launchURLs()
        do {
            try await application.start()
            append(["app": app, "event": "ready", "pid": Int(getpid())])
            show("registered as \(application.id); scenes: \(application.openScenes.map(\.id))")
        } catch {
            FileHandle.standardError.write(Data("\(app): \(error)\n".utf8))
            if links.isEmpty { exit(69) }
        }
        for link in links {
            do { show("\(link) opened in \(try await application.openLaunchURL(link))") } catch { show("\(error)") }
        }
        await application.run()
        exit(0)
    }
}

/// The value of `key` in a URL's query (`photoIdentifier` in `myphotos://show?photoIdentifier=IMG_0042`).
public func queryValue(_ key: String, in url: String) -> String? {
    URLComponents(string: url)?.queryItems?.first { $0.name == key }?.value
}

/// A sample refuses an event it cannot make sense of; the dispatcher then tries elsewhere.
public struct SampleError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// The links on the command line: arguments with a URI scheme that are not an option's value.
public func launchURLs() -> [String] {
    let arguments = Array(CommandLine.arguments.dropFirst())
    return arguments.indices.filter { index in
        arguments[index].contains("://") && (index == 0 || !arguments[index - 1].hasPrefix("--"))
    }.map { arguments[$0] }
}

/// The values following each `--name` on the command line.
public func commandLineValues(_ name: String) -> [String] {
    let arguments = CommandLine.arguments
    return arguments.indices.dropLast().filter { arguments[$0] == name }.map { arguments[$0 + 1] }
}
