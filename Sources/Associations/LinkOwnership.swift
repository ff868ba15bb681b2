// One file: the ownership decision and the values it answers with (decisions, reasons, rule
// sources), which change together whenever a reason for a link's owner is added.

/// A file of the user's own in `$XDG_CONFIG_HOME/waypost/associations/`: the `applinks`
/// vocabulary, naming any desktop entry (an app, or a browser: "work links in the work browser").
/// It needs no agreement from the app, and comes before every association. Its components may
/// name the apps that opened the link (`"opener"`), and the file may say which links it is for
/// (`"hosts"`, `"scheme"`); else its name gives its hosts (`*.corp.example.json`).
public struct UserRule: Sendable {
    /// The links the rule applies to.
    public let scope: RuleScope
    public let file: AssociationFile
    /// Where the rule comes from (its file's path), for reasons.
    public let source: String

    public init(hosts: DomainClaim, file: AssociationFile, source: String) {
        self.init(scope: RuleScope(hosts: [hosts]), file: file, source: source)
    }

    public init(scope: RuleScope, file: AssociationFile, source: String) {
        self.scope = scope
        self.file = file
        self.source = source
    }

    /// The rule in a file named `name` (without `.json`): the file's own scope, else the hosts
    /// its name is.
    public init(named name: String, file: AssociationFile, source: String) throws(DomainClaimError) {
        let scope: RuleScope
        if let declared = file.scope { scope = declared } else { scope = RuleScope(hosts: [try DomainClaim(name)]) }
        self.init(scope: scope, file: file, source: source)
    }
}

/// Which links a user's rule is for: web links (http and https) of some hosts or of every host,
/// and links of custom schemes.
public struct RuleScope: Sendable, Equatable {
    public var hosts: [DomainClaim]
    /// `"hosts": ["*"]`.
    public var everyHost: Bool
    /// Lower case; never http, https or file.
    public var schemes: [String]

    public init(hosts: [DomainClaim] = [], everyHost: Bool = false, schemes: [String] = []) {
        self.hosts = hosts
        self.everyHost = everyHost
        self.schemes = schemes
    }

    public func covers(host: String) -> Bool { everyHost || hosts.contains { $0.covers(host: host) } }
}

/// What a decision knows of the app that opened the link.
public enum OpenerFact: Sendable, Equatable {
    /// Still being found: a rule naming openers that the link reaches makes the decision wait.
    case pending
    /// Found: the app's id, or nil when no app is known to have opened the link.
    case known(String?)
}

/// What the user's rules say of a link of a custom scheme.
public enum SchemeRuling: Sendable, Equatable, CustomStringConvertible {
    /// No rule covers the scheme, or none matches: the scheme's handlers get it as always.
    case noRule
    /// A rule gives the link to an entry.
    case app(id: String, because: Ownership)
    /// A rule's `exclude` (or an entry naming no app) leaves it to the scheme's handlers.
    case handlers(because: BrowserReason)
    /// A rule naming openers is reached and the opener is still being found.
    case needsOpener

    public var description: String {
        switch self {
        case .noRule: "no user rule covers it"
        case .app(let id, let ownership): "\(id), by \(ownership)"
        case .handlers(let reason): "the scheme's handlers: \(reason)"
        case .needsOpener: "a user rule names openers, and the opener is not known yet"
        }
    }
}

/// Who owns a web link, from what is installed: the user's rules first, then universal links,
/// which need both sides to agree — the association of the domain names the app, and the app's
/// entry claims the domain. Built once per change of either side; `decide` does no I/O.
///
/// The rules beyond Apple's documentation, chosen as a user would expect:
/// - User rules apply to `http` and `https` links alike, whatever their port or user-info (the
///   user trusts themselves). Their first matching component decides: its entry's first app, or
///   the browser for an `exclude` or an entry without apps. A rule that matches nothing passes
///   the link on. A component naming openers matches only links one of those apps opened; one
///   reached before the opener is known (`OpenerFact.pending`) stops the decision (nil), so that
///   routing waits for the opener only for links whose decision depends on it.
/// - Universal links are `https` only, on the default port, without user-info (which would hand
///   credentials, or a disguise like `https://bank.example@evil.example`, to an app).
/// - Each app is judged by its most specific claim covering the host (Apple: the longest), whose
///   association domain's file must name it; the most specific domains are tried first.
public struct LinkOwnership: Sendable {
    /// The rules for web links, and for each custom scheme those for its links, in file order.
    let userRules: [UserRule]
    private let schemeRules: [String: [UserRule]]
    /// Compiled before the table is built, so that no decision compiles (or waits for a compile).
    private let associations: [String: AssociationFile]
    private let claims: [String: [DomainClaim]]
    /// Host → apps claiming exactly it; domain → apps claiming `*.domain`.
    private let exactClaims: [String: [String]]
    private let wildcardClaims: [String: [String]]

    /// - Parameters:
    ///   - associations: association domain → its usable file (installed, or fetched and verified).
    ///   - claims: app id → the claims of its installed, opted-in entry.
    public init(userRules: [UserRule], associations: [String: AssociationFile], claims: [String: [DomainClaim]]) {
        self.userRules = userRules.filter { $0.scope.everyHost || !$0.scope.hosts.isEmpty }
        var schemeRules: [String: [UserRule]] = [:]
        for rule in userRules {
            for scheme in rule.scope.schemes { schemeRules[scheme, default: []].append(rule) }
        }
        self.schemeRules = schemeRules
        self.associations = associations
        self.claims = claims
        var exact: [String: [String]] = [:]
        var wildcard: [String: [String]] = [:]
        for app in claims.keys.sorted() {
            for claim in Set(claims[app]!) {
                if claim.includesSubdomains {
                    if wildcard[claim.domain]?.contains(app) != true { wildcard[claim.domain, default: []].append(app) }
                } else if exact[claim.domain]?.contains(app) != true {
                    exact[claim.domain, default: []].append(app)
                }
            }
        }
        exactClaims = exact
        wildcardClaims = wildcard
    }

    /// - Parameter deferredAssociations: association domain → its file, compiled here, before the
    ///   table exists (a malformed one names no app: its links go to the browser).
    public init(userRules: [UserRule], deferredAssociations: [String: DeferredAssociation], claims: [String: [DomainClaim]]) {
        self.init(userRules: userRules, associations: deferredAssociations.compactMapValues(\.file), claims: claims)
    }

    /// Where a link goes, and why.
    /// - Parameter opener: the app that opened it (nil: none known), for rules naming openers.
    public func decide(_ link: WebLink, opener: String? = nil) -> OwnershipDecision {
        decide(link, opener: .known(opener))!
    }

    /// Where a link goes; nil only when the opener is `pending` and the decision depends on it.
    public func decide(_ link: WebLink, opener: OpenerFact) -> OwnershipDecision? {
        switch Self.apply(userRules.lazy.filter { $0.scope.covers(host: link.host) }, to: link, opener: opener) {
        case .needsOpener: return nil
        case .app(let id, let ownership): return .app(id: id, because: ownership)
        case .handlers(let reason): return .browser(because: reason)
        case .noRule: break
        }
        guard link.scheme == "https" else { return .browser(because: .plainHTTP) }
        guard !link.hasUserInfo else { return .browser(because: .userInfo) }
        guard link.hasDefaultPort else { return .browser(because: .port(link.port ?? 0)) }

        let candidates = claimants(of: link.host)
        guard !candidates.isEmpty else { return .browser(because: .notClaimed(host: link.host)) }
        var reason: BrowserReason?
        for (domain, apps) in candidates {
            guard let file = associations[domain] else {
                reason = reason ?? .noAssociation(domain: domain, claimants: apps)
                continue
            }
            let match = file.match(link, opener: opener)
            let source = RuleSource.association(domain: domain)
            if match.needsOpener { return nil }
            if match.isOverBudget { return .browser(because: .overBudget(source, match)) }
            if match.details == nil {
                reason = reason ?? .noMatch(domain: domain, match)
            } else if match.excluded {
                reason = reason ?? .excluded(source, match)
            } else if let app = match.apps.first(where: apps.contains) {
                // Every app the file names that claims the domain owns it: the user may be asked.
                let others = match.apps.filter { $0 != app && apps.contains($0) }
                return .app(id: app, because: Ownership(source: source, match: match, others: others))
            } else if match.apps.isEmpty {
                reason = reason ?? .namesNoApp(source, match)
            } else {
                reason = reason ?? .notNamed(domain: domain, named: match.apps, claimants: apps)
            }
        }
        return .browser(because: reason!)
    }

    /// `decide` for a link still as text: one that is not a web link goes to the browser.
    public func decide(url: String, opener: String? = nil) -> OwnershipDecision {
        decide(url: url, opener: .known(opener))!
    }

    /// `decide(url:)`; nil only when the opener is `pending` and the decision depends on it.
    public func decide(url: String, opener: OpenerFact) -> OwnershipDecision? {
        do {
            return decide(try WebLink(url), opener: opener)
        } catch {
            return .browser(because: .unparsable(error))
        }
    }

    /// What the user's rules say of a link of a custom scheme (`"scheme": "zoommtg"`): its first
    /// matching component, as for web links, with the scheme's handlers in the browser's place.
    public func decide(schemeLink url: String, opener: OpenerFact) -> SchemeRuling {
        guard let link = WebLink(customSchemeLink: url), let rules = schemeRules[link.scheme] else { return .noRule }
        return Self.apply(rules, to: link, opener: opener)
    }

    /// Whether any rule covers links of `scheme`: only then is `decide(schemeLink:)` worth asking.
    public func hasRules(forScheme scheme: String) -> Bool { schemeRules[scheme] != nil }

    /// The first of `rules` whose file matches the link decides.
    private static func apply(_ rules: some Sequence<UserRule>, to link: WebLink, opener: OpenerFact) -> SchemeRuling {
        for rule in rules {
            let match = rule.file.match(link, opener: opener)
            if match.needsOpener { return .needsOpener }
            let source = RuleSource.userRule(rule.source)
            if match.isOverBudget { return .handlers(because: .overBudget(source, match)) }
            guard match.details != nil else { continue }
            if match.excluded { return .handlers(because: .excluded(source, match)) }
            guard let app = match.apps.first else { return .handlers(because: .namesNoApp(source, match)) }
            return .app(id: app, because: Ownership(source: source, match: match))
        }
        return .noRule
    }

    /// The apps claiming a host, grouped by the association domain that judges them, most
    /// specific first; each app once, under its most specific claim.
    private func claimants(of host: String) -> [(domain: String, apps: [String])] {
        var result: [(domain: String, apps: [String])] = []
        var seen: [String] = []
        if let apps = exactClaims[host] {
            result.append((host, apps))
            seen = apps
        }
        guard !wildcardClaims.isEmpty else { return result }
        // Each parent domain in turn, found as bytes (no grapheme breaking on every click).
        var rest = Substring(host)
        while let dot = rest.utf8.firstIndex(of: UInt8(ascii: ".")) {
            rest = rest[rest.utf8.index(after: dot)...]
            guard let apps = wildcardClaims[String(rest)] else { continue }
            let fresh = apps.filter { !seen.contains($0) }
            if !fresh.isEmpty {
                result.append((String(rest), fresh))
                seen += fresh
            }
        }
        return result
    }

    /// Every claim of every app, with whether its association agrees: what `waypost links list`
    /// shows, and the hosts a browser extension would hand over. Sorted by domain, then app.
    public var claimedDomains: [ClaimedDomain] {
        var list: [ClaimedDomain] = []
        for (app, appClaims) in claims {
            for claim in Set(appClaims) {
                let agreement: ClaimedDomain.Agreement =
                    switch associations[claim.associationDomain] {
                    case nil: .noAssociation
                    case let file? where file.appIDs.contains(app): .named
                    case _?: .notNamed
                    }
                list.append(ClaimedDomain(appID: app, claim: claim, agreement: agreement))
            }
        }
        return list.sorted { ($0.claim.domain, $0.claim.description, $0.appID) < ($1.claim.domain, $1.claim.description, $1.appID) }
    }
}

extension LinkOwnership {
    /// The host patterns (`shop.example`, `*.shop.example`) under which some link may go to an app:
    /// each claim whose association names its app, and each user rule that names an entry. What a
    /// browser extension keeps to decide a click on any other host without asking. Sorted, unique.
    public var ownedDomains: [String] {
        var domains = Set(claimedDomains.filter { $0.agreement == .named }.map(\.claim.description))
        // A rule for every host ("hosts": ["*"]) makes every link worth asking about: "*".
        for rule in userRules where !rule.file.appIDs.isEmpty {
            if rule.scope.everyHost { domains.insert("*") }
            domains.formUnion(rule.scope.hosts.map(\.description))
        }
        return domains.sorted()
    }
}

/// One claim of one app, and what its association domain's file says of it.
public struct ClaimedDomain: Sendable, Hashable {
    public enum Agreement: Sendable, Hashable {
        /// The association names the app: its links can go to it.
        case named
        /// The association exists and does not name the app (a hijack attempt, or a stale entry).
        case notNamed
        /// No usable association of that domain (not installed, not fetched and verified yet).
        case noAssociation
    }

    public let appID: String
    public let claim: DomainClaim
    public let agreement: Agreement
}

/// Where a web link goes.
public enum OwnershipDecision: Sendable, Equatable, CustomStringConvertible {
    case app(id: String, because: Ownership)
    case browser(because: BrowserReason)

    public var description: String {
        switch self {
        case .app(let id, let ownership): "\(id), by \(ownership)"
        case .browser(let reason): "the browser: \(reason)"
        }
    }
}

/// What gave an app the link: a user rule or an association, and its match.
public struct Ownership: Sendable, Equatable, CustomStringConvertible {
    public let source: RuleSource
    public let match: AssociationMatch
    /// The other apps that own the link as much (named by the same entry, each claiming the
    /// domain), in the file's order; empty for a user rule.
    public let others: [String]

    init(source: RuleSource, match: AssociationMatch, others: [String] = []) {
        (self.source, self.match, self.others) = (source, match, others)
    }

    public var description: String { "\(source): \(match.reason)" }

    /// Whether an association (not a user rule) gave the link: only then may the user have turned
    /// the app's links off.
    public var isAssociation: Bool { if case .association = source { true } else { false } }
}

/// A user rule (by its source) or the association of a domain.
public enum RuleSource: Sendable, Equatable, CustomStringConvertible {
    case userRule(String)
    case association(domain: String)

    public var description: String {
        switch self {
        case .userRule(let source): "the user rule \(source)"
        case .association(let domain): "the association of \(domain)"
        }
    }
}

/// Why no app has a web link.
public enum BrowserReason: Sendable, Equatable, CustomStringConvertible {
    case unparsable(WebLinkError)
    case plainHTTP
    case userInfo
    case port(Int)
    case notClaimed(host: String)
    /// Apps claim the domain, but its association is neither installed nor verified.
    case noAssociation(domain: String, claimants: [String])
    case noMatch(domain: String, AssociationMatch)
    case excluded(RuleSource, AssociationMatch)
    case namesNoApp(RuleSource, AssociationMatch)
    /// The association names other apps than those claiming the domain: the hijack case.
    case notNamed(domain: String, named: [String], claimants: [String])
    /// Matching the link took more steps than a decision may (`AssociationFile.stepBudget`).
    case overBudget(RuleSource, AssociationMatch)

    public var description: String {
        switch self {
        case .unparsable(let error): "not a web link Waypost can match: \(error)"
        case .plainHTTP: "an http link is never a universal link; only https ones are"
        case .userInfo: "the link carries user-info (user@host), which is never handed to an app"
        case .port(let port): "the link names port \(port); associations cover the scheme's default port only"
        case .notClaimed(let host): "no installed app claims \(host)"
        case .noAssociation(let domain, let claimants):
            "\(claimants.joined(separator: ", ")) \(claimants.count == 1 ? "claims" : "claim") it, but no association of \(domain) is installed or verified"
        case .noMatch(let domain, let match): "the association of \(domain): \(match.reason)"
        case .excluded(let source, let match), .namesNoApp(let source, let match), .overBudget(let source, let match):
            "\(source): \(match.reason)"
        case .notNamed(let domain, let named, let claimants):
            "the association of \(domain) names \(named.joined(separator: ", ")), not \(claimants.joined(separator: ", ")), which \(claimants.count == 1 ? "claims" : "claim") it"
        }
    }
}
