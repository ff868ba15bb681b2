import FoundationEssentials

/// "Keep opening DOMAIN in the browser" (the browser extension's choice, and `waypost links
/// keep-in-browser`): a user rule file `$XDG_CONFIG_HOME/waypost/associations/DOMAIN.json` whose one
/// entry names no app, so that every link of the domain goes to the browser whoever opens it (the
/// extension, `gio open`, `xdg-open`), as Apple remembers the user's choice per domain.
///
/// Waypost marks the files it writes (`"waypost": {"kept-in-browser": true}`) and only ever
/// replaces or removes a marked file: a rule the user wrote for that domain is never touched.
public struct KeptInBrowser: Sendable {
    /// The user's rules directory.
    public let directory: String

    public init(_ directories: AssociationDirectories) {
        directory = directories.user
    }

    /// The rule file of `domain`.
    public func path(of domain: AssociatedDomain) -> String { "\(directory)/\(domain.name)\(AssociationFileSet.suffix)" }

    /// Writes the domain's rule (again, when it is Waypost's already).
    /// - Returns: whether a file was written (false: it was kept already).
    /// - Throws: `userRule` when the user has a rule of their own for the domain; `file` when it cannot be written.
    @discardableResult
    public func keep(_ domain: AssociatedDomain) throws(KeptInBrowserError) -> Bool {
        let path = path(of: domain)
        switch try existing(path) {
        case .waypost: return false
        case .user: throw .userRule(domain: domain.name, path: path)
        case .none: break
        }
        do {
            try FileSystem.makeDirectories(directory)
            try FileSystem.writeAtomically(Self.rule(for: domain), to: path)
        } catch { throw .file(domain: domain.name, reason: error.description) }
        return true
    }

    /// Removes the domain's rule when Waypost wrote it.
    /// - Returns: whether a file was removed (false: the domain was not kept).
    /// - Throws: `userRule` when the file there is the user's own; `file` when it cannot be removed.
    @discardableResult
    public func undo(_ domain: AssociatedDomain) throws(KeptInBrowserError) -> Bool {
        let path = path(of: domain)
        switch try existing(path) {
        case .none: return false
        case .user: throw .userRule(domain: domain.name, path: path)
        case .waypost: break
        }
        do { try FileSystem.remove(path) } catch { throw .file(domain: domain.name, reason: error.description) }
        return true
    }

    /// Every domain kept in the browser by a file Waypost wrote, sorted.
    public var domains: [String] {
        let listed = (try? FileSystem.regularFiles(in: directory, endingWith: AssociationFileSet.suffix)) ?? nil
        return (listed ?? []).compactMap { file -> String? in
            let name = String(file.name.dropLast(AssociationFileSet.suffix.count))
            guard let domain = try? AssociatedDomain(name), domain.name == name,
                  case .waypost? = try? existing(path(of: domain)) else { return nil }
            return name
        }.sorted()
    }

    private enum Owner { case none, waypost, user }

    private func existing(_ path: String) throws(KeptInBrowserError) -> Owner {
        let bytes: [UInt8]
        do { bytes = try FileSystem.read(path, limit: AssociationFileSet.sizeLimit).bytes } catch {
            if error.isMissing { return .none }
            throw .file(domain: path, reason: error.description)
        }
        return Self.isWaypostsOwn(bytes) ? .waypost : .user
    }

    /// The rule: one details entry naming no app, whose one component matches every link.
    public static func rule(for domain: AssociatedDomain) -> [UInt8] {
        let rule = Rule(
            waypost: .init(keptInBrowser: true, note: "Written by Waypost: links of \(domain.name) open in the browser. `waypost links undo-keep \(domain.name)` removes this file."),
            applinks: .init(details: [.init(appIDs: [], components: [.init(path: "*", comment: "every link of the domain")])]))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return Array((try? encoder.encode(rule)) ?? Data()) + [UInt8(ascii: "\n")]
    }

    /// Whether a rule file carries Waypost's mark (decoded, never searched as text).
    public static func isWaypostsOwn(_ bytes: [UInt8]) -> Bool {
        struct Marked: Decodable {
            struct Mark: Decodable {
                let keptInBrowser: Bool
                enum CodingKeys: String, CodingKey { case keptInBrowser = "kept-in-browser" }
            }
            let waypost: Mark
        }
        return (try? JSONDecoder().decode(Marked.self, from: Data(bytes)))?.waypost.keptInBrowser == true
    }

    private struct Rule: Encodable {
        struct Mark: Encodable {
            let keptInBrowser: Bool
            let note: String
            enum CodingKeys: String, CodingKey { case keptInBrowser = "kept-in-browser", note }
        }
        struct AppLinks: Encodable { let details: [Details] }
        struct Details: Encodable {
            let appIDs: [String]
            let components: [Component]
        }
        struct Component: Encodable {
            let path: String
            let comment: String
            enum CodingKeys: String, CodingKey { case path = "/", comment }
        }
        let waypost: Mark
        let applinks: AppLinks
    }
}

/// Why a domain could not be kept in the browser, or given back.
public enum KeptInBrowserError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The user wrote a rule of their own for the domain: Waypost leaves it alone.
    case userRule(domain: String, path: String)
    case file(domain: String, reason: String)

    public var description: String {
        switch self {
        case .userRule(let domain, let path): "\(path) is a rule of your own for \(domain); Waypost does not change it (edit it yourself)"
        case .file(let domain, let reason): "\(domain): \(reason)"
        }
    }
}
