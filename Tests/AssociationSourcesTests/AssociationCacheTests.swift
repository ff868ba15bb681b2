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
        // Written whole and renamed: no temporary file stays behind; beside the record only the
        // writers' lock, whose hidden name no record has and which `records()` does not read.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == [".lock", "shop.example.json"])
        #expect(cache.records().records == [record] && cache.records().problems.isEmpty)
    }

    @Test func anUpdateFollowsTheRecordAnotherWriterStored() throws {
        defer { cleanUp() }
        // Another process (`waypost links verify`) verified the domain while this one's fetch ran.
        let verified = VerificationRecord(notYet: domain).after(.success(FetchedFile(body: Array("{}".utf8), maxAge: nil)), at: now)
        try AssociationCache(directory: directory.path).store(verified)
        let stored = try cache.update(domain) { $0.after(.failure(.nameResolution(host: "shop.example", message: "Could not resolve host")), at: now + 60) }
        // A network failure keeps the good copy the other writer stored.
        #expect(stored.state == .verified && stored.file == Array("{}".utf8))
        #expect(try cache.record(for: domain) == stored)
        // With nothing stored, the change starts from notYet.
        let other = try AssociatedDomain("other.example")
        #expect(try cache.update(other) { $0 } == VerificationRecord(notYet: other))
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
