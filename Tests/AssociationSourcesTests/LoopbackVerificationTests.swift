import AssociationSources
import Foundation
import TestSupport
import Testing

/// The verifier end to end against a real HTTPS site on loopback (see `LoopbackSite`): what
/// `waypost links verify` prints and what the cache then holds, which is all the daemon reads.
@Suite struct LoopbackVerificationTests {
    private func record(_ site: LoopbackSite, _ domain: String) throws -> VerificationRecord {
        try AssociationCache(directory: site.cacheDirectory.path).record(for: AssociatedDomain(domain))
    }

    @Test func aFileNamingTheAppVerifiesAndIsCachedAsServedWithItsMaxAge() async throws {
        let site = try await LoopbackSite()
        defer { site.close() }
        let before = Date()
        let result = try await site.verify("valid.example")
        #expect(result.status == 0, "\(result.description)\n\(site.log)")
        #expect(result.description.hasPrefix("valid.example: verified ("))

        let record = try record(site, "valid.example")
        #expect(record.state == .verified)
        #expect(record.file == Array(LoopbackSite.validFile.utf8))
        #expect(record.servedFile(at: Date()) == Array(LoopbackSite.validFile.utf8))
        let verified = try #require(record.verified)
        #expect(verified >= before.addingTimeInterval(-1))
        // Cache-Control: max-age=7200, within the bounds: checked again two hours later.
        #expect(record.nextCheck == verified.addingTimeInterval(7200))
    }

    @Test func contentTypeParametersAreAllowed() async throws {
        let site = try await LoopbackSite(behaviours: ["other.example": "valid-charset"])
        defer { site.close() }
        let result = try await site.verify("other.example")
        #expect(result.status == 0, "\(result.description)")
        let record = try record(site, "other.example")
        // No Cache-Control: the weekly re-verification.
        #expect(record.nextCheck == record.verified?.addingTimeInterval(7 * 24 * 3600))
    }

    @Test func aFileNamingAnotherAppIsRefusedWithTheValidatorsReason() async throws {
        let site = try await LoopbackSite(behaviours: ["other.example": "other-app"])
        defer { site.close() }
        let result = try await site.verify("other.example")
        #expect(result.status == 1)
        #expect(result.description.contains("does not name org.example.Shop"), "\(result.description)")
        let record = try record(site, "other.example")
        guard case .failed(.invalidFile(let message)) = record.state else {
            Issue.record("expected an invalid file, got \(record.state)")
            return
        }
        #expect(message.contains("org.example.Other"))
        #expect(record.servedFile(at: Date()) == nil)
    }

    @Test(arguments: [
        ("redirect", VerificationFailure.redirect(status: 301, location: "https://valid.example/.well-known/apple-app-site-association")),
        ("oversize", .oversize(limit: 128 * 1024)),
        ("oversize-unannounced", .oversize(limit: 128 * 1024)),
        ("html", .contentType(served: "text/html; charset=utf-8")),
        ("missing", .httpStatus(status: 404)),
    ])
    func theSitesRefusalsFailWithTheirReason(behaviour: String, failure: VerificationFailure) async throws {
        let site = try await LoopbackSite(behaviours: ["other.example": behaviour])
        defer { site.close() }
        let result = try await site.verify("other.example")
        #expect(result.status == 1)
        #expect(result.description == "other.example: failed: \(failure) \(try dates(site, "other.example"))")
        #expect(try record(site, "other.example").state == .failed(reason: failure))
    }

    @Test func aCertificateFromAnotherAuthorityIsRefused() async throws {
        let site = try await LoopbackSite()
        defer { site.close() }
        let result = try await site.verify("untrusted.example")
        #expect(result.status == 1)
        guard case .failed(.certificate(let host, let message)) = try record(site, "untrusted.example").state else {
            Issue.record("expected a certificate failure: \(result.description)")
            return
        }
        #expect(host == "untrusted.example")
        #expect(message.contains("certificate"), "\(message)")
        // The site never saw a request: the handshake failed first. (A request is logged as the one after.)
        #expect(!site.log.contains("untrusted.example \"GET"))
        #expect(try await site.verify("valid.example").status == 0)
        #expect(site.log.contains("valid.example \"GET /.well-known/apple-app-site-association"), "\(site.log)")
    }

    @Test func aCertificateForAnotherNameIsRefused() async throws {
        let site = try await LoopbackSite()
        defer { site.close() }
        let result = try await site.verify("misnamed.example")
        #expect(result.status == 1)
        guard case .failed(.certificate(_, let message)) = try record(site, "misnamed.example").state else {
            Issue.record("expected a certificate failure: \(result.description)")
            return
        }
        #expect(message.contains("misnamed.example"), "\(message)")
    }

    @Test func aServerThatIsDownIsAConnectionFailure() async throws {
        let site = try await LoopbackSite()
        defer { site.close() }
        let result = try await site.verify("down.example")
        #expect(result.status == 1)
        guard case .failed(.connection(let host, _)) = try record(site, "down.example").state else {
            Issue.record("expected a connection failure: \(result.description)")
            return
        }
        #expect(host == "down.example")
    }

    @Test func anUnknownNameIsANameResolutionFailure() async throws {
        let site = try await LoopbackSite()
        defer { site.close() }
        _ = try await site.verify("unknown.example")
        guard case .failed(.nameResolution(let host, _)) = try record(site, "unknown.example").state else {
            Issue.record("expected a name resolution failure, got \(try record(site, "unknown.example").state)")
            return
        }
        #expect(host == "unknown.example")
    }

    @Test func aSiteSlowerThanTheTotalTimeoutIsATimeout() async throws {
        let site = try await LoopbackSite(behaviours: ["other.example": "slow"])
        defer { site.close() }
        let result = try await site.verify("other.example", totalTimeout: 1)
        #expect(result.status == 1)
        guard case .failed(.timeout(let host, _)) = try record(site, "other.example").state else {
            Issue.record("expected a timeout: \(result.description)")
            return
        }
        #expect(host == "other.example")
    }

    /// Six sites that never answer, listed first, do not hold up a good one: fetched a few at a
    /// time, its record is stored while they still hold their connections (one at a time, it would
    /// wait for each one's whole timeout, here an hour).
    @Test func aGoodDomainIsVerifiedWhileSlowOnesHang() async throws {
        let site = try await LoopbackSite(behaviours: Dictionary(uniqueKeysWithValues: LoopbackSite.slowNames.map { ($0, "slow") }))
        defer { site.close() }
        let verifying = try await site.startVerifying(LoopbackSite.slowNames + ["valid.example"], totalTimeout: 3600)
        defer { verifying.kill() }
        let first = try await verifying.nextLine("the good domain's record")
        #expect(first?.hasPrefix("valid.example: verified (") == true, "\(first ?? "no line")\n\(site.log)")
        #expect(try record(site, "valid.example").state == .verified)
        for host in LoopbackSite.slowNames { #expect(try record(site, host).state == .notYet, "\(host)") }
    }

    /// Offline keeps the last good copy, served; the site's own refusal replaces it.
    @Test func networkFailuresKeepTheLastGoodCopyUntilTheSiteRefuses() async throws {
        let site = try await LoopbackSite(behaviours: ["other.example": "valid"])
        defer { site.close() }
        #expect(try await site.verify("other.example").status == 0)
        let good = try record(site, "other.example")

        for (behaviour, failure) in [("drop", "transfer"), ("unavailable", "status 503")] {
            try site.set("other.example", to: behaviour)
            let result = try await site.verify("other.example")
            #expect(result.status == 0, "\(behaviour): \(result.description)")
            #expect(result.description.contains("the last good copy is kept"), "\(result.description)")
            #expect(result.description.contains(failure), "\(result.description)")
            let offline = try record(site, "other.example")
            #expect(offline.state == .verified)
            #expect(offline.verified == good.verified)
            #expect(offline.servedFile(at: Date()) == Array(LoopbackSite.validFile.utf8))
            #expect(offline.lastFailure != nil)
        }

        try site.set("other.example", to: "other-app")
        #expect(try await site.verify("other.example").status == 1)
        let refused = try record(site, "other.example")
        #expect(refused.file == nil)
        #expect(refused.servedFile(at: Date()) == nil)
        #expect(refused.verified == good.verified)
    }

    /// A record past its next check needs verification but is still served until a check replaces it.
    @Test func anExpiredRecordIsServedUntilReplaced() async throws {
        let site = try await LoopbackSite(behaviours: ["other.example": "valid"])
        defer { site.close() }
        #expect(try await site.verify("other.example").status == 0)
        let cache = AssociationCache(directory: site.cacheDirectory.path)
        let domain = try AssociatedDomain("other.example")
        let record = try cache.record(for: domain)
        let due = try #require(record.nextCheck)
        #expect(!cache.needsVerification(domain, at: due.addingTimeInterval(-1)))
        #expect(cache.needsVerification(domain, at: due))
        #expect(record.servedFile(at: due) == Array(LoopbackSite.validFile.utf8))

        try site.set("other.example", to: "missing")
        #expect(try await site.verify("other.example").status == 1)
        let replaced = try cache.record(for: domain)
        #expect(replaced.state == .failed(reason: .httpStatus(status: 404)))
        #expect(replaced.servedFile(at: Date()) == nil)
        #expect(!cache.needsVerification(domain, at: Date()))
    }

    private func dates(_ site: LoopbackSite, _ domain: String) throws -> String {
        let record = try record(site, domain)
        let attempt = try #require(record.lastAttempt).formatted(.iso8601)
        let next = try #require(record.nextCheck).formatted(.iso8601)
        return "(last attempt \(attempt), next check \(next))"
    }
}
