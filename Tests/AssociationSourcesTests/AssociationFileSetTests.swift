import AssociationSources
import Foundation
import Testing

/// Installed and user files from real directories in a throwaway root.
@Suite struct AssociationFileSetTests {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("waypost-associations-\(UUID().uuidString)")
    var dataHome: URL { root.appendingPathComponent("data/waypost/associations") }
    var system: URL { root.appendingPathComponent("usr/share/waypost/associations") }
    var set: AssociationFileSet { AssociationFileSet(directories: [dataHome.path, system.path]) }

    private func write(_ text: String, _ name: String, in directory: URL) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try text.write(to: directory.appendingPathComponent(name), atomically: true, encoding: .utf8)
    }

    private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test func theFirstDirectoryHoldingANameWins() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        try write("user", "shop.example.json", in: dataHome)
        try write("package", "shop.example.json", in: system)
        try write("package", "news.example.json", in: system)
        var files = set
        let changes = files.refresh()
        #expect(changes.added.map(\.name) == ["news.example", "shop.example"])
        #expect(files.files["shop.example"]?.bytes == bytes("user"))
        #expect(files.files["shop.example"]?.path == dataHome.appendingPathComponent("shop.example.json").path)
        #expect(files.files["news.example"]?.bytes == bytes("package"))
        #expect(try AssociationFileSet.first(named: "shop.example", in: files.directories)?.bytes == bytes("user"))
        #expect(try AssociationFileSet.first(named: "news.example", in: files.directories)?.bytes == bytes("package"))
        #expect(try AssociationFileSet.first(named: "none.example", in: files.directories) == nil)
    }

    @Test func onlyJSONFilesThatAreNotHiddenCount() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        try write("{}", "shop.example.json", in: system)
        try write("{}", ".shop.example.json", in: system)
        try write("{}", "shop.example.json~", in: system)
        try write("{}", "README", in: system)
        try FileManager.default.createDirectory(at: system.appendingPathComponent("dir.example.json"), withIntermediateDirectories: true)
        var files = set
        #expect(files.refresh().added.map(\.name) == ["shop.example"])
    }

    @Test func aLinkToAFileIsFollowed() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        try write("packaged", "real.json", in: root)
        try FileManager.default.createDirectory(at: system, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: system.appendingPathComponent("shop.example.json").path, withDestinationPath: root.appendingPathComponent("real.json").path)
        var files = set
        #expect(files.refresh().added.map(\.bytes) == [bytes("packaged")])
    }

    @Test func aSecondRefreshWithNothingChangedReportsNothing() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        try write("a", "a.example.json", in: system)
        try write("b", "b.example.json", in: system)
        var files = set
        _ = files.refresh()
        let before = files.files
        let changes = files.refresh()
        #expect(changes.isEmpty)
        #expect(changes.problems.isEmpty)
        #expect(files.files == before)
    }

    @Test func changesAdditionsAndRemovalsAreReportedAndOnlyThoseRead() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        try write("a", "a.example.json", in: system)
        try write("b", "b.example.json", in: system)
        try write("c", "c.example.json", in: system)
        var files = set
        _ = files.refresh()

        try write("a, edited", "a.example.json", in: system)  // a new inode, by the rename
        try FileManager.default.removeItem(at: system.appendingPathComponent("b.example.json"))
        try write("d", "d.example.json", in: system)
        let changes = files.refresh()
        #expect(changes.changed.map(\.bytes) == [bytes("a, edited")])
        #expect(changes.removed == ["b.example"])
        #expect(changes.added.map(\.name) == ["d.example"])
        #expect(files.files.keys.sorted() == ["a.example", "c.example", "d.example"])
    }

    @Test func anInPlaceWriteIsAChange() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        try write("one", "a.example.json", in: system)
        var files = set
        _ = files.refresh()
        let handle = try FileHandle(forWritingTo: system.appendingPathComponent("a.example.json"))
        try handle.write(contentsOf: Data("two".utf8))  // same inode, same size
        try handle.close()
        #expect(files.refresh().changed.map(\.bytes) == [bytes("two")])
    }

    @Test func removingTheWinningFileRevealsTheNextOne() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        try write("user", "shop.example.json", in: dataHome)
        try write("package", "shop.example.json", in: system)
        var files = set
        _ = files.refresh()
        try FileManager.default.removeItem(at: dataHome.appendingPathComponent("shop.example.json"))
        let changes = files.refresh()
        #expect(changes.changed.map(\.bytes) == [bytes("package")])
        #expect(changes.removed.isEmpty)
        #expect(files.files["shop.example"]?.path == system.appendingPathComponent("shop.example.json").path)
    }

    @Test func aFileTooLargeIsAProblemAndTheOthersLoad() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        try write(String(repeating: " ", count: AssociationFileSet.sizeLimit + 1), "huge.example.json", in: system)
        try write("{}", "shop.example.json", in: system)
        var files = set
        let changes = files.refresh()
        #expect(changes.added.map(\.name) == ["shop.example"])
        #expect(changes.problems.map(\.path) == [system.appendingPathComponent("huge.example.json").path])
        #expect(changes.problems.first?.reason.contains("larger than 1048576 bytes") == true)
    }

    @Test func missingDirectoriesAreEmpty() {
        var files = AssociationFileSet(directories: ["/nonexistent/waypost/associations"])
        let changes = files.refresh()
        #expect(changes.isEmpty)
        #expect(changes.problems.isEmpty)
    }

    @Test func theUsersRulesComeFromTheConfigDirectory() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let directories = AssociationDirectories(
            dataHome: root.appendingPathComponent(".local/share").path, dataDirectories: ["/usr/share"],
            configHome: root.appendingPathComponent("config").path, cacheHome: root.appendingPathComponent(".cache").path)
        try write("work", "work.example.json", in: URL(fileURLWithPath: directories.user))
        var rules = AssociationFileSet.user(directories)
        #expect(rules.refresh().added.map(\.name) == ["work.example"])
        #expect(AssociationFileSet.installed(directories).directories.first == root.appendingPathComponent(".local/share/waypost/associations").path)
    }
}
