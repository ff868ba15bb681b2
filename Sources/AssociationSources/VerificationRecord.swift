public import FoundationEssentials

/// Where a domain's verification stands.
public enum VerificationState: Sendable, Equatable, Codable {
    /// Never attempted: its links go to the browser.
    case notYet
    /// The site served a file the validator accepted; links use `VerificationRecord.file`.
    case verified
    /// Not verified, and why; its links go to the browser.
    case failed(reason: VerificationFailure)
}

/// What the cache knows of one domain: its state, its last good file and the dates that decide
/// when it is checked again. Changes only by `after(_:at:policy:)`, a pure function, so every
/// transition is tested without the network.
public struct VerificationRecord: Sendable, Equatable, CustomStringConvertible {
    public let domain: AssociatedDomain
    public private(set) var state: VerificationState
    /// The last file that passed verification, byte for byte as served; only while `verified`.
    public private(set) var file: [UInt8]?
    /// When `file` was last fetched and accepted.
    public private(set) var verified: Date?
    public private(set) var lastAttempt: Date?
    /// When the domain is due to be checked again; nil before the first attempt (due now).
    public private(set) var nextCheck: Date?
    /// The latest attempt's failure while the last good copy is still served (offline, say).
    public private(set) var lastFailure: VerificationFailure?

    /// A domain never attempted.
    public init(notYet domain: AssociatedDomain) {
        self.domain = domain
        state = .notYet
    }

    /// True when no check is scheduled after `now`.
    public func needsVerification(at now: Date) -> Bool { nextCheck.map { $0 <= now } ?? true }

    /// The file links may use at `now`: the verified copy until `policy.keepOfflineFor` after its
    /// verification; nil otherwise (its links go to the browser).
    public func servedFile(at now: Date, policy: VerificationPolicy = .standard) -> [UInt8]? {
        guard case .verified = state, let file, let verified, now < verified + policy.keepOfflineFor else { return nil }
        return file
    }

    /// The record after an attempt that ended at `now` with `outcome`: an accepted file (and the
    /// seconds its `Cache-Control` allows), or a failure.
    ///
    /// An accepted file replaces everything. The site's own refusal (`isAnswerFromSite`) drops the
    /// good copy. Any other failure keeps a verified copy, still served, until it is older than
    /// `keepOfflineFor`.
    public func after(
        _ outcome: Result<FetchedFile, VerificationFailure>, at now: Date, policy: VerificationPolicy = .standard
    ) -> VerificationRecord {
        var next = self
        next.lastAttempt = now
        switch outcome {
        case .success(let fetched):
            next.state = .verified
            next.file = fetched.body
            next.verified = now
            next.lastFailure = nil
            next.nextCheck = now + policy.freshness(maxAge: fetched.maxAge)
        case .failure(let failure) where !failure.isAnswerFromSite && servedFile(at: now, policy: policy) != nil:
            next.lastFailure = failure
            next.nextCheck = now + policy.retryAfterNetworkFailure
        case .failure(let failure):
            next.state = .failed(reason: failure)
            next.file = nil
            next.lastFailure = nil
            next.nextCheck = now + (failure.isAnswerFromSite ? policy.retryAfterRefusal : policy.retryAfterNetworkFailure)
        }
        return next
    }

    /// One line for `waypost links verify` and `links list`.
    public var description: String {
        let stillVerified = state == .verified
        let dates = [
            verified.map { "\(stillVerified ? "verified" : "last verified") \(Self.format($0))" },
            lastAttempt.map { "last attempt \(Self.format($0))" },
            nextCheck.map { "next check \(Self.format($0))" },
        ].compactMap { $0 }.joined(separator: ", ")
        switch state {
        case .notYet:
            return "\(domain): not yet verified"
        case .verified:
            let offline = lastFailure.map { "; the last attempt failed, the last good copy is kept: \($0)" } ?? ""
            return "\(domain): verified (\(dates))\(offline)"
        case .failed(let reason):
            return "\(domain): failed: \(reason) (\(dates))"
        }
    }

    private static func format(_ date: Date) -> String { date.formatted(.iso8601) }
}

extension VerificationRecord: Codable {
    private enum CodingKeys: String, CodingKey { case domain, state, file, verified, lastAttempt, nextCheck, lastFailure }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        domain = try container.decode(AssociatedDomain.self, forKey: .domain)
        state = try container.decode(VerificationState.self, forKey: .state)
        file = try container.decodeIfPresent(Data.self, forKey: .file).map { [UInt8]($0) }
        verified = try container.decodeIfPresent(Date.self, forKey: .verified)
        lastAttempt = try container.decodeIfPresent(Date.self, forKey: .lastAttempt)
        nextCheck = try container.decodeIfPresent(Date.self, forKey: .nextCheck)
        lastFailure = try container.decodeIfPresent(VerificationFailure.self, forKey: .lastFailure)
    }

    /// The file as base64 (JSONEncoder's way with `Data`): a number array would be four times larger.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(domain, forKey: .domain)
        try container.encode(state, forKey: .state)
        try container.encodeIfPresent(file.map { Data($0) }, forKey: .file)
        try container.encodeIfPresent(verified, forKey: .verified)
        try container.encodeIfPresent(lastAttempt, forKey: .lastAttempt)
        try container.encodeIfPresent(nextCheck, forKey: .nextCheck)
        try container.encodeIfPresent(lastFailure, forKey: .lastFailure)
    }
}
