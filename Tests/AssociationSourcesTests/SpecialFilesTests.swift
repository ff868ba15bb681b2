import AssociationSources
import Foundation
import Testing

/// A FIFO where a file is read (a cached record, a user's rule): refused at once, never waited on.
@Suite struct SpecialFilesTests {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("waypost-fifo-\(UUID().uuidString)")

    @Test func aFIFOInPlaceOfACachedRecordIsAnErrorNotAWait() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let directory = root.appendingPathComponent("waypost/associations")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let cache = AssociationCache(directory: directory.path)
        let domain = try AssociatedDomain("shop.example")
        try #require(mkfifo(cache.path(for: domain), 0o600) == 0)
        // Reading would block in open() until a writer came; it is refused instead, and the
        // domain is due for a check (which replaces the record).
        let error = #expect(throws: AssociationCacheError.self) { try cache.record(for: domain) }
        #expect(error?.description.contains("is not a regular file") == true, "\(String(describing: error))")
        #expect(cache.needsVerification(domain, at: Date()))
    }
}
