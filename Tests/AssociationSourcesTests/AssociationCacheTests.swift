import AssociationSources
import Foundation
import Testing

/// The cache's files in a throwaway directory.
@Suite struct AssociationCacheTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("waypost-cache-\(UUID().uuidString)/waypost/associations")
    var cache: AssociationCache { AssociationCache(directory: directory.path) }
    let domain = try! AssociatedDomain("shop.example")
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    private func cleanUp() { try? FileManager.default.removeItem(at: directory.deletingLastPathComponent().deletingLastPathComponent()) }

    @Test func aDomainNeverStoredIsNotYetVerifiedAndDue() throws {
        #expect(try cache.record(for: domain) == VerificationRecord(notYet: domain))
        #expect(cache.needsVerification(domain, at: now))
    }

    @Test func aStoredRecordIsReadBackAsItWas() throws {
        defer { cleanUp() }
        let record = VerificationRecord(notYet: domain).after(.success(FetchedFile(body: Array("{}".utf8), maxAge: 7200)), at: now)
        try cache.store(record)
        #expect(try cache.record(for: domain) == record)
        #expect(!cache.needsVerification(domain, at: now + 7199))
        #expect(cache.needsVerification(domain, at: now + 7200))
        // Written whole and renamed: no temporary file stays behind.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["shop.example.json"])
    }

    @Test func aStoredRecordReplacesThePreviousOne() throws {
        defer { cleanUp() }
        let verified = VerificationRecord(notYet: domain).after(.success(FetchedFile(body: Array("{}".utf8), maxAge: nil)), at: now)
        try cache.store(verified)
        let refused = verified.after(.failure(.httpStatus(status: 404)), at: now + 60)
        try cache.store(refused)
        #expect(try cache.record(for: domain) == refused)
    }

    @Test func aCorruptRecordIsAnErrorAndDue() throws {
        defer { cleanUp() }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try "{not json".write(to: directory.appendingPathComponent("shop.example.json"), atomically: true, encoding: .utf8)
        #expect(throws: AssociationCacheError.self) { try cache.record(for: domain) }
        #expect(cache.needsVerification(domain, at: now))
    }

    @Test func aRecordOfAnotherDomainIsNotTaken() throws {
        defer { cleanUp() }
        let other = try AssociatedDomain("other.example")
        try cache.store(VerificationRecord(notYet: other).after(.failure(.httpStatus(status: 404)), at: now))
        try FileManager.default.moveItem(
            at: directory.appendingPathComponent("other.example.json"), to: directory.appendingPathComponent("shop.example.json"))
        let error = #expect(throws: AssociationCacheError.self) { try cache.record(for: domain) }
        #expect(error?.description.contains("it is the record of other.example") == true)
    }

    @Test func everyRecordIsListedWithTheUnreadableOnesBeside() throws {
        defer { cleanUp() }
        let other = try AssociatedDomain("other.example")
        try cache.store(VerificationRecord(notYet: domain).after(.success(FetchedFile(body: [], maxAge: nil)), at: now))
        try cache.store(VerificationRecord(notYet: other).after(.failure(.httpStatus(status: 404)), at: now))
        try "[]".write(to: directory.appendingPathComponent("broken.example.json"), atomically: true, encoding: .utf8)
        let (records, problems) = cache.records()
        #expect(records.map(\.domain) == [other, domain])
        #expect(problems.count == 1)
        #expect(problems.first?.description.contains("broken.example.json") == true)
    }

    @Test func aDomainCanBeForgotten() throws {
        defer { cleanUp() }
        try cache.store(VerificationRecord(notYet: domain).after(.success(FetchedFile(body: [], maxAge: nil)), at: now))
        try cache.remove(domain)
        try cache.remove(domain)
        #expect(try cache.record(for: domain).state == .notYet)
    }

    @Test func anUnwritableDirectoryIsAnErrorWithItsPath() throws {
        let blocked = FileManager.default.temporaryDirectory.appendingPathComponent("waypost-blocked-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: blocked) }
        try "a file".write(to: blocked, atomically: true, encoding: .utf8)  // a file where a directory should be
        let cache = AssociationCache(directory: blocked.appendingPathComponent("associations").path)
        let error = #expect(throws: AssociationCacheError.self) {
            try cache.store(VerificationRecord(notYet: domain).after(.failure(.httpStatus(status: 404)), at: now))
        }
        #expect(error?.description.contains(blocked.path) == true)
    }
}
