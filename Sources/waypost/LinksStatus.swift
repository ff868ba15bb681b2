import ArgumentParser
import AssociationSources
import Associations
import Desktop
import Dispatcher
import FoundationEssentials

/// The domains installed apps claim, each with where its association comes from and how it stands.
struct ClaimedDomains {
    struct Row {
        let app: String
        let claim: String
        let domain: String
        let source: String
        let state: String
        /// What the association's file says but Waypost ignores (a query item that is not a string).
        var warnings: [String] = []
    }

    let directories: AssociationDirectories
    let claims: [String: [DomainClaim]]
    let problems: [String]

    /// - Throws: `GIOLoadError` when GIO, which reads the entries and the XDG directories, cannot be opened.
    init() throws(GIOLoadError) {
        directories = AssociationDirectories(try XDGDirectories())
        (claims, problems) = AssociationLoader.claims(of: try ApplicationCatalog().participatingEntries())
    }

    /// Association domain → the apps whose claims it decides.
    var claimants: [String: [String]] { AssociationLoader.claimants(of: claims) }

    /// The installed association file of `domain`, if any (the first found wins).
    func installedFile(_ domain: String) -> AssociationSourceFile? {
        (try? AssociationFileSet.first(named: domain, in: directories.installed)) ?? nil
    }

    var rows: [Row] {
        let cache = AssociationCache(directories)
        var rows: [Row] = []
        for app in claims.keys.sorted() {
            for claim in claims[app]! {
                let domain = claim.associationDomain
                if let file = installedFile(domain) {
                    let state: String
                    do {
                        try AssociationLoader.validate(file.bytes, naming: [app])
                        state = "installed: names \(app)"
                    } catch { state = "installed, not used: \(error)" }
                    rows.append(Row(app: app, claim: claim.description, domain: domain, source: file.path, state: state,
                                    warnings: Self.warnings(file.bytes)))
                } else if let name = try? AssociatedDomain(domain) {
                    let record = (try? cache.record(for: name)) ?? VerificationRecord(notYet: name)
                    rows.append(Row(app: app, claim: claim.description, domain: domain, source: "fetched from \(name.associationFileURL)", state: record.description,
                                    warnings: record.servedFile(at: Date()).map(Self.warnings) ?? []))
                } else {
                    rows.append(Row(app: app, claim: claim.description, domain: domain, source: "none", state: "cannot be fetched: not a domain name"))
                }
            }
        }
        return rows
    }

    /// The warnings of an association file's bytes (none for bytes that are refused: the state says why).
    static func warnings(_ bytes: [UInt8]) -> [String] {
        ((try? AssociationFile(json: bytes))?.warnings ?? []).map(\.description)
    }
}

extension Links {
    /// `waypost links list`: every claimed domain, its app, its association's source and state.
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "Show every domain installed apps claim: the app, where its association comes from, whether it is verified.",
            discussion: """
                An https link opens in an app only when its entry claims the domain \
                (X-Waypost-Associated-Domains) and the domain's association names the app: an installed \
                file (waypost/associations/DOMAIN.json under $XDG_DATA_HOME or $XDG_DATA_DIRS), or the \
                domain's own /.well-known/apple-app-site-association, fetched and verified in the \
                background. The user's own rules ($XDG_CONFIG_HOME/waypost/associations) are listed last.
                """)

        func run() throws {
            let domains: ClaimedDomains
            do { domains = try ClaimedDomains() } catch {
                printError("waypost links list: \(error)")
                throw ExitCode(69)
            }
            for problem in domains.problems { printError("waypost: warning: \(problem)") }
            let rows = domains.rows
            if rows.isEmpty { print("no installed app claims a domain (X-Waypost-Associated-Domains)") }
            for row in rows {
                print("\(row.claim)  \(row.app)")
                print("    association: \(row.source)")
                print("    state: \(row.state)")
                for warning in row.warnings { print("    warning: \(warning)") }
            }
            var rules = AssociationFileSet.user(domains.directories)
            _ = rules.refresh()
            let kept = Set(KeptInBrowser(domains.directories).domains)
            for name in rules.files.keys.sorted() {
                print("\(name)  user rule \(rules.files[name]!.path)\(kept.contains(name) ? " (kept in the browser; waypost links undo-keep \(name))" : "")")
            }
        }
    }

    /// `waypost links verify [DOMAIN…]`: fetches and checks associations now.
    struct Verify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "verify",
            abstract: "Fetch and verify the associations of claimed domains now (the daemon also does, in the background).",
            discussion: """
                Fetches https://DOMAIN/.well-known/apple-app-site-association (certificates verified, no \
                redirects, application/json, at most 128 KiB) and records the result in \
                $XDG_CACHE_HOME/waypost/associations, where the running daemon picks it up. Without a \
                DOMAIN, every claimed domain that has no installed association. Exits 0 when every \
                domain is verified, 1 otherwise.
                """)

        @ArgumentParser.Argument(help: "Domains to verify (default: every claimed domain without an installed file).")
        var domains: [String] = []

        func run() async throws {
            let claimed: ClaimedDomains
            do { claimed = try ClaimedDomains() } catch {
                printError("waypost links verify: \(error)")
                throw ExitCode(69)
            }
            let claimants = claimed.claimants
            let wanted = domains.isEmpty
                ? claimants.keys.sorted().filter { claimed.installedFile($0) == nil }
                : domains
            if wanted.isEmpty { print("no claimed domain needs fetching") }
            let verifier = Verifier(cache: AssociationCache(claimed.directories))
            var allVerified = true
            var names: [AssociatedDomain] = []
            for domain in wanted {
                guard claimants[domain] != nil else {
                    printError("waypost links verify: no installed app claims \(domain)")
                    allVerified = false
                    continue
                }
                do { names.append(try AssociatedDomain(domain)) } catch {
                    printError("waypost links verify: \(error)")
                    allVerified = false
                }
            }
            // A few at a time, as the daemon fetches; each printed as it is stored.
            await verifier.verify(names, validate: { name, bytes in
                try AssociationLoader.validate(bytes, naming: claimants[name.name] ?? [])
            }) { name, result in
                switch result {
                case .success(let record):
                    print("\(name): \(record)")
                    if record.state != .verified { allVerified = false }
                case .failure(let error):
                    printError("waypost links verify: \(name): \(error)")
                    allVerified = false
                }
            }
            if !allVerified { throw ExitCode(1) }
        }
    }
}
