import FoundationEssentials

/// Checks a domain against its live association file and records the outcome in the cache.
///
/// Called in the background (when an app claiming the domain is installed, when the record is due,
/// and by `waypost links verify`), never on a link's path: the daemon decides links from the cache.
public struct Verifier: Sendable {
    public let cache: AssociationCache
    public let fetcher: AssociationFetcher
    public let policy: VerificationPolicy

    public init(cache: AssociationCache, fetcher: AssociationFetcher = AssociationFetcher(), policy: VerificationPolicy = .standard) {
        self.cache = cache
        self.fetcher = fetcher
        self.policy = policy
    }

    /// Fetches the domain's file, has `validate` judge it, and stores the record that follows from
    /// the previous one (`VerificationRecord.after`).
    /// - Parameter validate: throws when the file is not acceptable: malformed, or not naming the
    ///   app that claims the domain. Its error's description becomes the failure's message.
    /// - Returns: the record as stored.
    /// - Throws: `AssociationCacheError.unwritable` when the record cannot be stored. A previous
    ///   record that cannot be read is replaced, as if there were none.
    public func verify(
        domain: AssociatedDomain, validate: (_ file: [UInt8]) throws -> Void
    ) async throws(AssociationCacheError) -> VerificationRecord {
        let outcome: Result<FetchedFile, VerificationFailure>
        do {
            let fetched = try await fetcher.fetch(domain)
            do {
                try validate(fetched.body)
                outcome = .success(fetched)
            } catch {
                outcome = .failure(.invalidFile(message: "\(error)"))
            }
        } catch {
            outcome = .failure(error)
        }
        let previous = (try? cache.record(for: domain)) ?? VerificationRecord(notYet: domain)
        let record = previous.after(outcome, at: Date(), policy: policy)
        try cache.store(record)
        return record
    }
}
