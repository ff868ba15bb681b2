import AssociationSources
import Foundation
import Testing

/// The cache's state transitions, without the network: `VerificationRecord.after` alone decides them.
@Suite struct VerificationRecordTests {
    let domain = try! AssociatedDomain("shop.example")
    let start = Date(timeIntervalSince1970: 1_800_000_000)
    let good = FetchedFile(body: Array(#"{"applinks":{}}"#.utf8), maxAge: nil)
    let hour: TimeInterval = 3600
    let day: TimeInterval = 86400
    let offline = VerificationFailure.nameResolution(host: "shop.example", message: "Could not resolve host")

    private var verified: VerificationRecord { VerificationRecord(notYet: domain).after(.success(good), at: start) }

    @Test func aNewDomainNeedsVerificationAndServesNothing() {
        let record = VerificationRecord(notYet: domain)
        #expect(record.state == .notYet)
        #expect(record.needsVerification(at: start))
        #expect(record.servedFile(at: start) == nil)
        #expect(record.description == "shop.example: not yet verified")
    }

    @Test func anAcceptedFileIsVerifiedServedAndRecheckedWeekly() {
        let record = verified
        #expect(record.state == .verified)
        #expect(record.file == good.body)
        #expect(record.verified == start)
        #expect(record.lastAttempt == start)
        #expect(record.nextCheck == start + 7 * day)
        #expect(record.servedFile(at: start + 29 * day) == good.body)
        #expect(!record.needsVerification(at: start + 7 * day - 1))
        #expect(record.needsVerification(at: start + 7 * day))
    }

    @Test(arguments: [(0, 3600), (60, 3600), (7200, 7200), (30 * 86400, 7 * 86400)] as [(Int, TimeInterval)])
    func maxAgeSetsTheNextCheckBetweenAnHourAndAWeek(maxAge: Int, interval: TimeInterval) {
        let record = VerificationRecord(notYet: domain).after(.success(FetchedFile(body: good.body, maxAge: maxAge)), at: start)
        #expect(record.nextCheck == start + interval)
    }

    @Test func aNetworkFailureKeepsTheVerifiedCopyServedAndRetriesInAnHour() {
        let record = verified.after(.failure(offline), at: start + 8 * day)
        #expect(record.state == .verified)
        #expect(record.servedFile(at: start + 8 * day) == good.body)
        #expect(record.verified == start)
        #expect(record.lastAttempt == start + 8 * day)
        #expect(record.lastFailure == offline)
        #expect(record.nextCheck == start + 8 * day + hour)
        #expect(record.description.contains("the last attempt failed, the last good copy is kept: shop.example did not resolve"))
    }

    @Test func theKeptCopyExpiresThirtyDaysAfterItsVerification() {
        let kept = verified.after(.failure(offline), at: start + 29 * day)
        #expect(kept.servedFile(at: start + 30 * day - 1) == good.body)
        #expect(kept.servedFile(at: start + 30 * day) == nil)  // expired even before the next attempt
        let expired = kept.after(.failure(offline), at: start + 30 * day)
        #expect(expired.state == .failed(reason: offline))
        #expect(expired.file == nil)
        #expect(expired.nextCheck == start + 30 * day + hour)
    }

    @Test(arguments: [
        VerificationFailure.httpStatus(status: 404), .httpStatus(status: 410), .invalidFile(message: "it does not name org.example.Shop"),
        .redirect(status: 301, location: "https://www.shop.example/"), .contentType(served: "text/html"), .oversize(limit: 131072),
    ])
    func theSitesRefusalReplacesTheVerifiedCopyAndRetriesNextDay(refusal: VerificationFailure) {
        #expect(refusal.isAnswerFromSite)
        let record = verified.after(.failure(refusal), at: start + day)
        #expect(record.state == .failed(reason: refusal))
        #expect(record.file == nil)
        #expect(record.servedFile(at: start + day) == nil)
        #expect(record.verified == start)  // when it last was, for `links list`
        #expect(record.nextCheck == start + 2 * day)
        #expect(record.description.hasPrefix("shop.example: failed: \(refusal) (last verified 2027-01-15T08:00:00Z, last attempt"))
    }

    @Test(arguments: [
        VerificationFailure.clientUnavailable(reason: "no libcurl"), .nameResolution(host: "h", message: "m"),
        .connection(host: "h", message: "m"), .certificate(host: "h", message: "m"), .timeout(host: "h", message: "m"),
        .transfer(host: "h", message: "m"), .httpStatus(status: 503), .httpStatus(status: 500), .httpStatus(status: 429),
        .httpStatus(status: 408),
    ])
    func failuresThatSayNothingOfTheSitesFileAreNotItsAnswer(failure: VerificationFailure) {
        #expect(!failure.isAnswerFromSite)
        #expect(verified.after(.failure(failure), at: start + hour).state == .verified)
        let never = VerificationRecord(notYet: domain).after(.failure(failure), at: start)
        #expect(never.state == .failed(reason: failure))
        #expect(never.nextCheck == start + hour)
    }

    @Test func aFailedDomainVerifiesAgainWhenTheSiteIsFixed() {
        let failed = verified.after(.failure(.httpStatus(status: 404)), at: start + day)
        let fixed = failed.after(.success(good), at: start + 2 * day)
        #expect(fixed.state == .verified)
        #expect(fixed.servedFile(at: start + 2 * day) == good.body)
        #expect(fixed.lastFailure == nil)
    }

    @Test func theRecordRoundTripsThroughJSON() throws {
        let record = verified.after(.failure(offline), at: start + day)
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let data = try encoder.encode(record)
        #expect(try decoder.decode(VerificationRecord.self, from: data) == record)
        // The file as base64, not as an array of numbers.
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["file"] as? String == Data(good.body).base64EncodedString())
    }
}
