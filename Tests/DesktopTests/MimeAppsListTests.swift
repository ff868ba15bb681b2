import Desktop
import Foundation
import Testing

/// mimeapps.list editing without GIO: every edit undone restores the bytes exactly.
@Suite struct MimeAppsListTests {
    let own = "io.waypost.Dispatcher.desktop"

    func list(_ text: String) throws -> (MimeAppsList, String) {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("mimeapps-\(UUID().uuidString).list").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return (try MimeAppsList(path: path), path)
    }

    @Test("a parsed file writes back byte for byte, final newline or not", arguments: [
        "", "\n", "# only a comment", "[Default Applications]\ntext/plain=a.desktop;\n",
        "  # indented\n[Added Associations]\n\ttext/plain = a.desktop;b.desktop;\n\n\n[Default Applications]\nx=y",
    ])
    func roundTrip(text: String) throws {
        let parsed = try KeyFileText(bytes: Array(text.utf8), file: "f")
        #expect(parsed.bytes == Array(text.utf8))
    }

    @Test("syntax errors name the file, the line and the offending text", arguments: [
        ("[Default Applications]\nok=1\nthis is not a pair\n", 3, "this is not a pair"),
        ("text/plain=a.desktop;\n[Default Applications]\n", 1, "comes before the first [group]"),
        ("# c\n[Default Applications\n", 2, "must end with ']'"),
        ("[Default Applications]\n=a.desktop;\n", 2, "needs a key"),
        ("[G]\nkey[=v\n", 2, "not a valid key"),
        ("[G]\na[x[y]]=v\n", 2, "not a valid key"),
        ("[G]\na]=v\n", 2, "not a valid key"),
        ("[G]\n[de]=v\n", 2, "must end with ']'"),
        ("[G]\na[]=v\n", 2, "not a valid key"),
    ])
    func malformed(text: String, line: Int, fragment: String) throws {
        #expect {
            _ = try KeyFileText(bytes: Array(text.utf8), file: "/x/mimeapps.list")
        } throws: { error in
            guard case .malformed(let file, let number, _, _) = error as? KeyFileError else { return false }
            return file == "/x/mimeapps.list" && number == line && "\(error)".contains(fragment)
                && "\(error)".hasPrefix("/x/mimeapps.list:\(line): ")
        }
    }

    @Test("keys, values, groups and lists read as GLib reads them, escapes undone byte by byte")
    func values() throws {
        let text = "  [Group One]\t\nName[de_DE] \t=\t  Grüße \\s\\n\\x\\\\ \n# c\n[Two]\nx-scheme-handler/a=b.desktop; c\\sd.desktop ;;é.desktop;\n"
        let parsed = try KeyFileText(bytes: Array(text.utf8), file: "f")
        #expect(parsed.entries(in: "Group One").map(\.key) == ["Name[de_DE]"])
        let value = try #require(parsed.entry("Name[de_DE]", in: "Group One")?.value)
        #expect(value == "Grüße \\s\\n\\x\\\\ ")
        #expect(KeyFileText.unescape(value) == "Grüße  \n\\x\\ ")
        #expect(KeyFileText.unescape("end\\") == "end\\")
        let list = try #require(parsed.entry("x-scheme-handler/a", in: "Two")?.value)
        #expect(KeyFileText.list(list) == ["b.desktop", "c d.desktop", "é.desktop"])
        #expect(try KeyFileText(bytes: Array("[G]\nName[sr@latin]=x\n".utf8), file: "f").entries(in: "G").map(\.key) == ["Name[sr@latin]"])
    }

    @Test func invalidUTF8IsAnErrorWithItsLine() {
        let bytes = Array("[G]\n".utf8) + [0x61, 0x3D, 0xFF, 0x0A]
        #expect(throws: KeyFileError.self) { try KeyFileText(bytes: bytes, file: "f") }
        do { _ = try KeyFileText(bytes: bytes, file: "f") } catch {
            #expect("\(error)".hasPrefix("f:2: not valid UTF-8"))
        }
    }

    @Test("setting defaults and restoring them leaves the file as it was", arguments: [
        // a replaced line (odd spacing kept), an added line, a file without final newline
        "# mine\n[Added Associations]\ntext/plain=gedit.desktop;\n\n[Default Applications]\n  x-scheme-handler/notes = old.desktop;\ntext/html=firefox.desktop;\n# trailing comment",
        // no [Default Applications] group, no final newline
        "[Added Associations]\ntext/plain=gedit.desktop;",
        // an empty file
        "",
    ])
    func undo(text: String) throws {
        var (list, _) = try list(text)
        let types = ["x-scheme-handler/notes", "x-scheme-handler/photos", "text/markdown"]
        var changes: [String: MimeAppsList.Change] = [:]
        for type in types { changes[type] = try list.setDefault(type, to: own) }
        for type in types { #expect(list.defaults(for: type) == [own]) }
        #expect(list.text.bytes != Array(text.utf8))
        for type in types.reversed() {
            #expect(try list.restoreDefault(type, from: own, previousLine: changes[type]!.previousLine))
        }
        if changes.values.contains(where: \.createdGroup) {
            list.removeCreatedGroup(addedFinalNewline: changes.values.contains(where: \.addedFinalNewline))
        }
        #expect(String(decoding: list.text.bytes, as: UTF8.self) == text)
    }

    @Test func otherLinesStayAndTheNewLineJoinsTheGroup() throws {
        var (list, path) = try list("[Default Applications]\ntext/html=firefox.desktop;\n\n[Added Associations]\nx=y;\n")
        _ = try list.setDefault("x-scheme-handler/notes", to: own)
        try list.save()
        let written = try String(contentsOfFile: path, encoding: .utf8)
        #expect(written == "[Default Applications]\ntext/html=firefox.desktop;\nx-scheme-handler/notes=\(own);\n\n[Added Associations]\nx=y;\n")
    }

    @Test func aDefaultTheUserChangedSinceIsLeftAlone() throws {
        var (list, _) = try list("[Default Applications]\nx-scheme-handler/notes=old.desktop;\n")
        let change = try list.setDefault("x-scheme-handler/notes", to: own)
        _ = try list.setDefault("x-scheme-handler/notes", to: "chosen.desktop")  // the user's later choice
        #expect(try !list.restoreDefault("x-scheme-handler/notes", from: own, previousLine: change.previousLine))
        #expect(list.defaults(for: "x-scheme-handler/notes") == ["chosen.desktop"])
    }

    @Test("association lines set in any group and put back leave the file as it was", arguments: [
        // both groups there, the type's lines odd-spaced, no final newline
        "[Added Associations]\n x-scheme-handler/notes = old.desktop;\n\n[Removed Associations]\nx-scheme-handler/notes=gone.desktop;\n# end",
        // no [Removed Associations], no final newline: the group is created, then removed with the newline
        "[Added Associations]\nx-scheme-handler/notes=old.desktop;",
        "",
    ])
    func associationLines(text: String) throws {
        var (list, _) = try list(text)
        let type = "x-scheme-handler/notes"
        let removed = list.ids(for: type, in: MimeAppsList.removedGroup) + ["app.desktop"]
        let removal = try list.setLine(type, to: removed, in: MimeAppsList.removedGroup)
        let hadAdded = !list.ids(for: type, in: MimeAppsList.addedGroup).isEmpty
        let addition = hadAdded ? try list.setLine(type, to: [own], in: MimeAppsList.addedGroup) : nil
        #expect(list.ids(for: type, in: MimeAppsList.removedGroup).last == "app.desktop")
        if let addition {
            #expect(list.ids(for: type, in: MimeAppsList.addedGroup) == [own])
            #expect(try list.restoreLine(type, in: MimeAppsList.addedGroup, ifStill: [own], previousLine: addition.previousLine))
        }
        #expect(try list.restoreLine(type, in: MimeAppsList.removedGroup, ifStill: removed, previousLine: removal.previousLine))
        list.removeCreatedGroups(removal.createdGroup ? [MimeAppsList.removedGroup] : [], addedFinalNewline: removal.addedFinalNewline)
        #expect(String(decoding: list.text.bytes, as: UTF8.self) == text)
    }

    @Test func aRemovalLineTheUserChangedSinceIsLeftAlone() throws {
        var (list, _) = try list("[Removed Associations]\nx-scheme-handler/notes=gone.desktop;\n")
        let change = try list.setLine("x-scheme-handler/notes", to: ["gone.desktop", "app.desktop"], in: MimeAppsList.removedGroup)
        _ = try list.setLine("x-scheme-handler/notes", to: ["gone.desktop"], in: MimeAppsList.removedGroup)  // the user's edit
        #expect(try !list.restoreLine(
            "x-scheme-handler/notes", in: MimeAppsList.removedGroup, ifStill: ["gone.desktop", "app.desktop"], previousLine: change.previousLine))
        #expect(list.ids(for: "x-scheme-handler/notes", in: MimeAppsList.removedGroup) == ["gone.desktop"])
    }

    @Test func theEntriesWaypostHidAreThoseItAddedNotTheUsers() {
        var record = TakeoverRecord(mimeAppsList: "/m")
        record.removedAssociations["x-scheme-handler/notes"] = .init(
            written: ["gone.desktop", "app.desktop"], previous: "x-scheme-handler/notes = gone.desktop;")
        record.removedAssociations["x-scheme-handler/memo"] = .init(written: ["memo.desktop"], previous: nil)
        #expect(record.hiddenHandlers(forType: "x-scheme-handler/notes") == ["app.desktop"])
        #expect(record.hiddenHandlers(forType: "x-scheme-handler/memo") == ["memo.desktop"])
        #expect(record.hiddenHandlers(forType: "x-scheme-handler/other").isEmpty)
    }

    @Test func aMissingFileReadsAsEmpty() throws {
        let list = try MimeAppsList(path: "/nonexistent/mimeapps.list")
        #expect(!list.existed && list.text.lines.isEmpty)
    }

    @Test func theRecordRoundTrips() throws {
        var record = TakeoverRecord(mimeAppsList: "/home/u/.config/mimeapps.list")
        record.createdGroup = true
        record.previousDefaults = ["x-scheme-handler/notes": ["old.desktop", "other.desktop"], "text/markdown": []]
        record.previousLines = ["x-scheme-handler/notes": "  x-scheme-handler/notes = old.desktop;\\x"]
        record.createdRemovedGroup = true
        record.removedAssociations = [
            "x-scheme-handler/notes": .init(written: ["gone.desktop", "app.desktop"], previous: "x-scheme-handler/notes=gone.desktop;"),
            "x-scheme-handler/memo": .init(written: ["memo.desktop"], previous: nil),
        ]
        record.addedAssociations = ["x-scheme-handler/notes": .init(written: [own], previous: " x-scheme-handler/notes = old.desktop;")]
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("record-\(UUID().uuidString)").path
        try Files.write(record.bytes, to: path)
        #expect(try TakeoverRecord.load(path: path) == record)
        #expect(try TakeoverRecord.load(path: path + ".absent") == nil)
    }
}
