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

    /// How many domains `verify(_:)` fetches at once: enough that a few slow or silent sites do
    /// not hold up the others (each may take the whole `totalTimeout`), few enough to stay polite.
    public static let fetchesAtOnce = 8

    /// Verifies each domain, `atOnce` at a time, in the order given; `each` hears of each record as
    /// it is stored (or why it could not be), in the order they finish, in the caller's isolation.
    /// - Parameter validate: as for `verify(domain:validate:)`, told which domain the file is for.
    public func verify(
        _ domains: [AssociatedDomain], atOnce: Int = Self.fetchesAtOnce,
        validate: @escaping @Sendable (AssociatedDomain, [UInt8]) throws -> Void,
        isolation: isolated (any Actor)? = #isolation,
        each: (AssociatedDomain, Result<VerificationRecord, AssociationCacheError>) -> Void
    ) async {
        await withTaskGroup(of: (AssociatedDomain, Result<VerificationRecord, AssociationCacheError>).self, isolation: isolation) { group in
            var waiting = domains[...]
            for _ in 0..<max(1, atOnce) {
                guard let domain = waiting.popFirst() else { break }
                group.addTask { await (domain, self.result(domain, validate)) }
            }
            for await (domain, result) in group {
                each(domain, result)
                if let next = waiting.popFirst() { group.addTask { await (next, self.result(next, validate)) } }
            }
        }
    }

    private func result(
        _ domain: AssociatedDomain, _ validate: @Sendable (AssociatedDomain, [UInt8]) throws -> Void
    ) async -> Result<VerificationRecord, AssociationCacheError> {
        do { return .success(try await verify(domain: domain) { bytes in try validate(domain, bytes) }) } catch { return .failure(error) }
    }
}
