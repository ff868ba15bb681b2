// Verifies domains as the daemon and `waypost links verify` will, for the tests that run it inside a
// network namespace (where the test's hosts file and CA bundle stand in for the system's).
//
// Usage: association-verify --cache DIR --app-id ID [--total-timeout SECONDS] DOMAIN…
// Prints each stored record's description as it is stored, several domains fetched at once
// (`Verifier.verify(_:)`); exits 0 when all are verified, 1 when one is not, 2 on a usage or cache error.
import AssociationSources
import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// The test's stand-in for the `Associations` module's check: the file's `applinks.details`
/// name the app in `appIDs` (or `appID` when `appIDs` is absent).
struct NamesApp: Sendable {
    let appID: String

    private struct File: Decodable {
        struct Applinks: Decodable { let details: [Details] }
        struct Details: Decodable {
            let appIDs: [String]?
            let appID: String?
        }
        let applinks: Applinks
    }

    struct Refusal: Error, CustomStringConvertible {
        let description: String
    }

    func validate(_ bytes: [UInt8]) throws {
        let file: File
        do { file = try JSONDecoder().decode(File.self, from: Data(bytes)) } catch {
            throw Refusal(description: "not an applinks file: \(error)")
        }
        let named = file.applinks.details.flatMap { $0.appIDs ?? ($0.appID.map { [$0] } ?? []) }
        guard named.contains(appID) else { throw Refusal(description: "it does not name \(appID) (it names \(named))") }
    }
}

func fail(_ message: String) -> Never {
    let line = Array("association-verify: \(message)\n".utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(2)
}

var arguments = CommandLine.arguments.dropFirst()
var options: [String: String] = [:]
var domainTexts: [String] = []
while let argument = arguments.popFirst() {
    if argument.hasPrefix("--") {
        guard let value = arguments.popFirst() else { fail("\(argument) needs a value") }
        options[String(argument.dropFirst(2))] = value
    } else {
        domainTexts.append(argument)
    }
}
guard let cacheDirectory = options["cache"], let appID = options["app-id"], !domainTexts.isEmpty else {
    fail("usage: association-verify --cache DIR --app-id ID [--total-timeout SECONDS] DOMAIN…")
}
var limits = AssociationFetcher.Limits.standard
if let seconds = options["total-timeout"].flatMap(Double.init) { limits.totalTimeout = seconds }

let domains: [AssociatedDomain]
do { domains = try domainTexts.map { text throws(DomainNameError) in try AssociatedDomain(text) } } catch { fail("\(error)") }
/// Off the main actor: the records are reported where the fetches end.
nonisolated func verifyAll(_ domains: [AssociatedDomain], _ verifier: Verifier, _ namesApp: NamesApp) async -> Bool {
    var allVerified = true
    await verifier.verify(domains, validate: { _, bytes in try namesApp.validate(bytes) }) { _, result in
        switch result {
        case .success(let record):
            // Written at once, unbuffered: a test reads each line as it comes.
            let line = Array((record.description + "\n").utf8)
            _ = line.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
            if case .verified = record.state {} else { allVerified = false }
        case .failure(let error):
            fail("\(error)")
        }
    }
    return allVerified
}

let verifier = Verifier(cache: AssociationCache(directory: cacheDirectory), fetcher: AssociationFetcher(limits: limits))
exit(await verifyAll(domains, verifier, NamesApp(appID: appID)) ? 0 : 1)
