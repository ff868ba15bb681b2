import Desktop
import Foundation
import Testing
import TestSupport

/// What the daemon relies on to re-read association files: a change in a watched directory is
/// reported, also for a directory that did not exist when the watch began.
@Suite struct DirectoryChangesTests {
    let desktop = DesktopTestEnvironment.shared

    /// The changes reported, as a stream the test awaits (a signal, not a sleep).
    func watch(_ directories: [String]) async throws -> AsyncStream<String> {
        let (stream, continuation) = AsyncStream.makeStream(of: String.self)
        try await DirectoryChanges.watch(directories) { continuation.yield($0) }
        return stream
    }

    @Test func aFileWrittenIntoAWatchedDirectoryIsReported() async throws {
        let directory = desktop.root + "/" + desktop.uniqueName("watched-dir")
        let other = desktop.root + "/" + desktop.uniqueName("other-dir")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: other, withIntermediateDirectories: true)
        let changes = try await watch([other, directory])
        try Data("{}".utf8).write(to: URL(fileURLWithPath: directory + "/shop.example.json"), options: .atomic)
        #expect(try await next(changes, "the written file is reported") == directory)
    }

    @Test func aDirectoryCreatedAfterTheWatchBeganIsReportedOnceItHasAFile() async throws {
        let parent = desktop.root + "/" + desktop.uniqueName("later")
        let directory = parent + "/waypost/associations"
        let changes = try await watch([directory])
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try Data("{}".utf8).write(to: URL(fileURLWithPath: directory + "/shop.example.json"))
        #expect(try await next(changes, "the later directory's file is reported") == directory)
    }

    /// How a directory GIO cannot monitor (inotify's instances all taken) is followed instead. Each
    /// step is one change of the directory (a rename, one write, an unlink), so each is one report.
    @Test(.timeLimit(.minutes(1)))
    func pollingReportsAFileRenamedIntoPlaceAnEditedOneAndARemovedOne() async throws {
        let directory = desktop.root + "/" + desktop.uniqueName("polled-dir")
        let quiet = desktop.root + "/" + desktop.uniqueName("quiet-dir")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: quiet, withIntermediateDirectories: true)
        let (changes, continuation) = AsyncStream.makeStream(of: String.self)
        try DirectoryChanges.poll([quiet, directory], every: .milliseconds(20)) { continuation.yield($0) }
        let staged = desktop.root + "/" + desktop.uniqueName("staged.json")
        let file = directory + "/shop.example.json"
        try Data("{}".utf8).write(to: URL(fileURLWithPath: staged))
        try FileManager.default.moveItem(atPath: staged, toPath: file)
        #expect(try await next(changes, "the renamed file is reported") == directory)
        // Overwritten in place by one write (longer: a rewrite of the same size within one tick of
        // the kernel's clock keeps its modification time, and polling cannot tell it).
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: file))
        try handle.write(contentsOf: Data("[{}]".utf8))
        try handle.close()
        #expect(try await next(changes, "the edit is reported") == directory)
        try FileManager.default.removeItem(atPath: file)
        #expect(try await next(changes, "the removal is reported") == directory)
    }
}

/// The daemon takes every base directory from GLib, as GIO does: associations below the data,
/// config and cache homes, the activity store below the state home.
@Suite struct XDGDirectoriesTests {
    let desktop = DesktopTestEnvironment.shared

    @Test func theHomesAreTheEnvironmentsAsGLibReadIt() throws {
        let directories = try XDGDirectories()
        #expect(directories.dataHome == desktop.dataHome)
        #expect(directories.configHome == desktop.configHome)
        #expect(directories.cacheHome == desktop.root + "/cache")
        #expect(directories.stateHome == desktop.root + "/state")
        #expect(directories.systemDataDirectories == [desktop.root + "/system-data", "/usr/share"])
    }
}
