import AssociationSources
import Foundation
import Testing

/// "Keep opening DOMAIN in the browser" as rule files in a throwaway config directory: Waypost's own
/// are written, listed and removed; the user's own are never touched.
@Suite struct KeptInBrowserTests {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("waypost-kept-\(UUID().uuidString)")
    var kept: KeptInBrowser {
        KeptInBrowser(AssociationDirectories(dataHome: root.path + "/data", dataDirectories: [], configHome: root.path + "/config", cacheHome: root.path + "/cache"))
    }

    @Test func waypostsOwnRuleIsWrittenListedAndRemoved() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let shop = try AssociatedDomain("Shop.Example")
        #expect(kept.domains == [])
        #expect(try kept.keep(shop) == true)
        #expect(try kept.keep(shop) == false, "kept already")
        #expect(kept.domains == ["shop.example"])
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: kept.path(of: shop))))
        #expect(KeptInBrowser.isWaypostsOwn(bytes))
        #expect(try kept.undo(shop) == true)
        #expect(try kept.undo(shop) == false, "nothing left to undo")
        #expect(!FileManager.default.fileExists(atPath: kept.path(of: shop)))
    }

    @Test func theUsersOwnRuleIsNeverReplacedNorRemoved() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let shop = try AssociatedDomain("shop.example")
        let own = #"{"applinks": {"details": [{"appIDs": ["org.example.WorkBrowser"], "components": [{"/": "*"}]}]}, "waypost": {"kept-in-browser": "no"}}"#
        try FileManager.default.createDirectory(atPath: kept.directory, withIntermediateDirectories: true)
        try own.write(toFile: kept.path(of: shop), atomically: true, encoding: .utf8)
        #expect(throws: KeptInBrowserError.userRule(domain: "shop.example", path: kept.path(of: shop))) { try kept.keep(shop) }
        #expect(throws: KeptInBrowserError.userRule(domain: "shop.example", path: kept.path(of: shop))) { try kept.undo(shop) }
        #expect(try String(contentsOfFile: kept.path(of: shop), encoding: .utf8) == own)
        #expect(kept.domains == [], "the user's rule is not listed as Waypost's")
        #expect(!KeptInBrowser.isWaypostsOwn(Array("not json".utf8)))
    }
}
