import Associations
import ExternalEvents
import Planning

/// The desktop as a value: what a test installs.
struct Desk: InstalledApps {
    var schemeHandlers: [String: [InstalledApp]] = [:]
    var fallbacks: [String: InstalledApp] = [:]
    var browsers: [String: InstalledApp] = [:]
    var fileTypes: [String: String] = [:]
    var documentHandlers: [String: InstalledApp] = [:]
    var entries: [String: InstalledApp] = [:]
    var activityApps: [String: [InstalledApp]] = [:]
    var chosen: [String: String] = [:]
    /// Browsers besides `browsers`' one, by scheme.
    var otherBrowsers: [String: [InstalledApp]] = [:]

    func handlers(forScheme scheme: String) throws(CatalogFailure) -> [InstalledApp] { schemeHandlers[scheme] ?? [] }
    func fallbackHandler(forScheme scheme: String) throws(CatalogFailure) -> InstalledApp? { fallbacks[scheme] }
    func browser(forScheme scheme: String) throws(CatalogFailure) -> InstalledApp? { browsers[scheme] }
    func contentType(ofFile uri: String) -> String? { fileTypes.first { uri.hasSuffix($0.key) }?.value }
    func documentHandler(forType contentType: String) -> InstalledApp? { documentHandlers[contentType] }
    func entry(id: String) -> InstalledApp? { entries[id] }
    func applications(forActivityType type: String) -> [InstalledApp] { activityApps[type] ?? [] }
    func chosenApplicationID(forActivityType type: String) -> String? { chosen[type] }
    func browsers(forScheme scheme: String) throws(CatalogFailure) -> [InstalledApp] {
        (browsers[scheme].map { [$0] } ?? []) + (otherBrowsers[scheme] ?? [])
    }

    /// Installs `app` as an entry (and as a handler of `schemes`, in order).
    mutating func install(_ app: InstalledApp, schemes: [String] = []) {
        entries[app.id] = app
        for scheme in schemes {
            if app.participates { schemeHandlers[scheme, default: []].append(app) } else { fallbacks[scheme] = app }
        }
    }
}

/// The registered apps as a value: each ready app's scenes.
struct Running: RunningApps {
    var routers: [String: SceneRouter] = [:]
    func readyRouter(of appID: String) -> SceneRouter? { routers[appID] }
}

func ownership(
    rules: [(name: String, json: String)] = [], associations: [String: String] = [:], claims: [String: [String]] = [:]
) throws -> LinkOwnership {
    LinkOwnership(
        userRules: try rules.map { try UserRule(named: $0.name, file: AssociationFile(json: Array($0.json.utf8)), source: "\($0.name).json") },
        associations: try associations.mapValues { try AssociationFile(json: Array($0.utf8)) },
        claims: try claims.mapValues { try $0.map { try DomainClaim($0) } })
}
