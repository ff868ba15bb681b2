public import AssociationSources
public import Associations
public import Desktop
import FoundationEssentials
public import Logging

/// Keeps the dispatcher's `WebLinkTable` in step with what decides web links: the domains opted-in
/// entries claim, the installed association files, the user's rules and the verification cache.
///
/// An actor off the bus connection's thread: reading files and fetching never delay a link, which
/// is decided against the last table built. Each rebuild re-reads only files whose stamp changed
/// and parses only bytes it has not parsed before. Verification runs in the background, for claimed
/// domains with no installed file whose cache record is due.
public actor AssociationLoader {
    let table: WebLinkTable
    let directory: any ApplicationDirectory
    let directories: AssociationDirectories
    let verifier: Verifier
    let logger: Logger
    private var installed: AssociationFileSet
    private var user: AssociationFileSet
    /// Associations by source, so that a file whose bytes did not change is not compiled again.
    private var parsed: [String: DeferredAssociation] = [:]
    /// What the rebuild in progress used: `parsed` for the next one.
    private var used: [String: DeferredAssociation] = [:]
    private var verifying = false

    public init(
        table: WebLinkTable, directory: any ApplicationDirectory, directories: AssociationDirectories,
        verifier: Verifier, logger: Logger
    ) {
        self.table = table
        self.directory = directory
        self.directories = directories
        self.verifier = verifier
        self.logger = logger
        installed = .installed(directories)
        user = .user(directories)
    }

    /// Every directory whose changes call for a rebuild (to watch with `DirectoryChanges`).
    public nonisolated var watchedDirectories: [String] {
        directories.installed + [directories.user, directories.cache]
    }

    /// Rebuilds the table when a user's rule was added, changed or removed since it was built: the
    /// directory watch tells too, but later (see `DispatcherService.readsUserRules(with:)`).
    public func readUserRulesAgain() {
        var now = user
        if !now.refresh().isEmpty { reload() }
    }

    /// Builds the table anew from what is on disk now, and replaces the dispatcher's. Each
    /// association is compiled before the table that holds it is published, once per source and
    /// bytes; until then links are decided against the previous table.
    /// - Returns: the table now in use.
    @discardableResult
    public func reload() -> LinkOwnership {
        for problem in installed.refresh().problems + user.refresh().problems {
            logger.warning("association file not read: \(problem.path): \(problem.reason)")
        }
        let claims = currentClaims()
        var associations: [String: DeferredAssociation] = [:]
        let now = Date()
        for domain in Set(claims.values.joined().map(\.associationDomain)) {
            if let file = installed.files[domain] {
                associations[domain] = deferred(file.bytes, source: file.path)
            } else if let name = try? AssociatedDomain(domain),
                      let record = try? verifier.cache.record(for: name),
                      let bytes = record.servedFile(at: now, policy: verifier.policy) {
                associations[domain] = deferred(bytes, source: verifier.cache.path(for: name))
            }
        }
        let rules = compiledUserRules()
        parsed = used
        used = [:]
        // Compiled here, on the loader, before the table is published: a link never waits for a
        // compile. Each file's cost is bounded (AssociationFile's limits), and unchanged bytes
        // were compiled at an earlier rebuild.
        Self.compile(Array(associations.values), logger: logger)
        let ownership = LinkOwnership(userRules: rules, deferredAssociations: associations, claims: claims)
        table.replace(with: ownership)
        return ownership
    }

    /// Reads the user's rules alone and puts them in the table while it is not whole yet: all a
    /// custom-scheme link reads, a few small files, so the daemon can answer those links before
    /// it has read every entry and association file (`WebLinkTable.whole()`).
    public func loadUserRules() {
        for problem in user.refresh().problems {
            logger.warning("association file not read: \(problem.path): \(problem.reason)")
        }
        let rules = compiledUserRules()
        // Kept for the whole build: it compiles the same bytes once.
        parsed.merge(used) { _, new in new }
        used = [:]
        table.replaceUserRulesOnly(with: LinkOwnership(userRules: rules, deferredAssociations: [:], claims: [:]))
    }

    /// The user's rules as on disk at the last refresh, compiled now (a few files of the user's own),
    /// so that a mistake is logged at once.
    private func compiledUserRules() -> [UserRule] {
        var rules: [UserRule] = []
        for name in user.files.keys.sorted() {
            let file = user.files[name]!
            switch deferred(file.bytes, source: file.path).compile() {
            case .success(let association):
                do { rules.append(try UserRule(named: name, file: association, source: file.path)) } catch {
                    logger.warning("user rule \(file.path) ignored: it names no \"hosts\" or \"scheme\", and its name is not a domain (shop.example.json, *.shop.example.json)")
                }
            case .failure(let error): logger.warning("user rule \(file.path) refused: \(error)")
            }
        }
        return rules
    }

    /// Compiles each association not compiled yet, logging the malformed ones (at each rebuild).
    nonisolated static func compile(_ associations: [DeferredAssociation], logger: Logger) {
        for association in associations {
            if case .failure(let error) = association.compile() {
                logger.warning("association file \(association.source) refused: \(error)")
            }
        }
    }

    /// Fetches the association of every claimed domain that has no installed file and whose record
    /// is due (never checked, or its next check passed), a few at a time (`Verifier.fetchesAtOnce`:
    /// slow sites do not hold up the others), then rebuilds the table. A second call while one
    /// runs returns at once: the running one sees the same claims.
    public func verifyDueDomains() async {
        guard !verifying else { return }
        verifying = true
        defer { verifying = false }
        let claimants = Self.claimants(of: currentClaims())
        let now = Date()
        let due = claimants.keys.sorted().filter { installed.files[$0] == nil }.compactMap { domain in
            (try? AssociatedDomain(domain)).flatMap { verifier.cache.needsVerification($0, at: now) ? $0 : nil }
        }
        guard !due.isEmpty else { return }
        var changed = false
        await verifier.verify(due, validate: { domain, bytes in
            try Self.validate(bytes, naming: claimants[domain.name] ?? [])
        }) { domain, result in
            switch result {
            case .success(let record):
                logger.notice("verified \(domain): \(record)")
                changed = true
            case .failure(let error):
                logger.warning("the verification record of \(domain) could not be stored: \(error)")
            }
        }
        if changed { reload() }
    }

    /// A fetched file is acceptable when it parses and names at least one app that claims the domain.
    public static func validate(_ bytes: [UInt8], naming claimants: [String]) throws(AssociationValidationError) {
        let file: AssociationFile
        do { file = try AssociationFile(json: bytes) } catch { throw .malformed(error) }
        guard claimants.contains(where: file.appIDs.contains) else {
            throw .namesOtherApps(named: file.appIDs.sorted(), claimants: claimants)
        }
    }

    /// Association domain → the apps whose claims it decides, sorted.
    public static func claimants(of claims: [String: [DomainClaim]]) -> [String: [String]] {
        var result: [String: [String]] = [:]
        for (app, appClaims) in claims {
            for domain in Set(appClaims.map(\.associationDomain)) { result[domain, default: []].append(app) }
        }
        return result.mapValues { $0.sorted() }
    }

    /// App id → the valid claims of its opted-in entry; an invalid claim is logged and skipped.
    private func currentClaims() -> [String: [DomainClaim]] {
        let (claims, problems) = Self.claims(of: directory.participatingEntries())
        for problem in problems { logger.warning("\(problem)") }
        return claims
    }

    /// App id → the claims of each entry's `X-Waypost-Associated-Domains`, and a line for each
    /// claim that is not a domain (skipped).
    public static func claims(of entries: [ApplicationEntry]) -> (claims: [String: [DomainClaim]], problems: [String]) {
        var claims: [String: [DomainClaim]] = [:]
        var problems: [String] = []
        for entry in entries where entry.participates {
            for text in entry.associatedDomains {
                do { claims[entry.id, default: []].append(try DomainClaim(text)) } catch {
                    problems.append("\(entry.filePath): X-Waypost-Associated-Domains: \(error)")
                }
            }
        }
        return (claims, problems)
    }

    /// The deferred association for these bytes: the one of the previous rebuild when its source
    /// still holds the same bytes (compiled already, most likely), else a new one.
    private func deferred(_ bytes: [UInt8], source: String) -> DeferredAssociation {
        if let known = parsed[source], known.bytes == bytes {
            used[source] = known
            return known
        }
        let association = DeferredAssociation(bytes: bytes, source: source)
        used[source] = association
        return association
    }
}

/// Why a fetched association file was not accepted.
public enum AssociationValidationError: Error, Sendable, CustomStringConvertible {
    case malformed(AssociationFileError)
    case namesOtherApps(named: [String], claimants: [String])

    public var description: String {
        switch self {
        case .malformed(let error): "not an association file: \(error)"
        case .namesOtherApps(let named, let claimants):
            "it names \(named.isEmpty ? "no app" : named.joined(separator: ", ")), not \(claimants.joined(separator: ", "))"
        }
    }
}
