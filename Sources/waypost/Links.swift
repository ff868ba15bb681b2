import ArgumentParser
import AssociationSources
import Associations
import Desktop
import FoundationEssentials

/// `waypost links …`: universal links. More subcommands join `match` in this group.
struct Links: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "links",
        abstract: "Universal links: https links that open in the app their domain names.",
        subcommands: [Match.self, List.self, Verify.self, KeepInBrowser.self, UndoKeep.self, BrowserList.self, Off.self, On.self])
}

extension Links {
    /// `waypost links match --association FILE URL…`: what an association file says of each link,
    /// the way Apple's `swcutil match` lets a site owner test one.
    struct Match: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "match",
            abstract: "Match links against an association file (Apple's applinks format).",
            discussion: """
                Prints one JSON object per URL, on its own line: {"url", "apps" (the matching details \
                entry's app ids, empty when nothing matches or the match excludes the link), "details" \
                and "component" (the indexes that decided, or null), "excluded", "reason"}. The file is \
                judged alone: the link's host, and whether any app claims it, are not looked at. Exits 0 \
                whatever matched; 65 with the JSON path and the problem on stderr when the file is \
                malformed; 66 when it cannot be read; 64 for an argument that is not an http(s) link \
                (or, for a user rule naming "scheme", a link of that scheme). With --opener, components \
                naming openers ("opener", in the user's rules) match as if that app had opened the link.
                """)

        @Option(name: .long, help: "The association file (apple-app-site-association JSON), or a user rule.")
        var association: String

        @Option(name: .long, help: "Match as if this app (a desktop-file id) had opened the links.")
        var opener: String?

        @ArgumentParser.Argument(help: "The https links to match.")
        var urls: [String]

        func validate() throws {
            for url in urls where WebLink(customSchemeLink: url).map({ $0.scheme == "http" || $0.scheme == "https" }) ?? true {
                do { _ = try WebLink(url) } catch { throw ValidationError("\(error)") }
            }
        }

        func run() throws {
            let bytes: Data
            do {
                bytes = try Data(contentsOf: URL(fileURLWithPath: association))
            } catch {
                printError("waypost: \(association): cannot read the file")
                throw ExitCode(66)  // EX_NOINPUT
            }
            let file: AssociationFile
            do {
                file = try AssociationFile(json: bytes)
            } catch {
                printError("waypost: \(association): \(error)")
                throw ExitCode(65)  // EX_DATAERR
            }
            for warning in file.warnings { printError("waypost: \(association): warning: \(warning)") }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            // Web links were validated above; a link of another scheme only for a rule naming it.
            var links: [WebLink] = []
            for url in urls {
                do { links.append(try WebLink(url)) } catch {
                    guard let other = WebLink(customSchemeLink: url), file.scope?.schemes.contains(other.scheme) == true else {
                        printError("waypost: \(error) (and the file names no \"scheme\" of it)")
                        throw ExitCode(64)  // EX_USAGE
                    }
                    links.append(other)
                }
            }
            for (url, link) in zip(urls, links) {
                let match = file.match(link, opener: opener)
                print(String(decoding: try encoder.encode(MatchLine(url: url, match: match)), as: UTF8.self))
            }
        }
    }

    /// One line of `links match`: every key present, null where nothing decided.
    struct MatchLine: Encodable {
        let url: String
        let match: AssociationMatch

        enum CodingKeys: String, CodingKey {
            case url, apps, details, component, excluded, reason
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(url, forKey: .url)
            try container.encode(match.apps, forKey: .apps)
            try container.encode(match.details, forKey: .details)
            try container.encode(match.component, forKey: .component)
            try container.encode(match.excluded, forKey: .excluded)
            try container.encode(match.reason, forKey: .reason)
        }
    }
}

extension Links {
    /// `waypost links keep-in-browser DOMAIN…`: what the browser extension's "Keep opening DOMAIN in
    /// the browser" writes, from the command line.
    struct KeepInBrowser: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "keep-in-browser",
            abstract: "Open every link of a domain in the browser, whoever opens it (undo with `waypost links undo-keep`).",
            discussion: """
                Writes $XDG_CONFIG_HOME/waypost/associations/DOMAIN.json, a user rule naming no app and \
                marked as Waypost's; the running daemon uses it at once, for every opener (the browser \
                extension, gio open, xdg-open). A rule file of your own for the domain is never changed.
                """)

        @ArgumentParser.Argument(help: "The domains (shop.example).")
        var domains: [String]

        func run() throws { try changeKeptDomains(domains) { kept, domain throws(KeptInBrowserError) in
            try kept.keep(domain) ? "links of \(domain) now open in the browser (\(kept.path(of: domain)))" : "\(domain) was kept in the browser already"
        } }
    }

    /// `waypost links undo-keep DOMAIN…`: removes the rule `keep-in-browser` (or the extension) wrote.
    struct UndoKeep: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "undo-keep",
            abstract: "Let a domain's links open in the app that owns them again (undoes keep-in-browser).",
            discussion: "Removes the rule file Waypost wrote for the domain; a rule file of your own is never removed.")

        @ArgumentParser.Argument(help: "The domains (shop.example).")
        var domains: [String]

        func run() throws { try changeKeptDomains(domains) { kept, domain throws(KeptInBrowserError) in
            try kept.undo(domain) ? "links of \(domain) open in the app that owns them again" : "\(domain) was not kept in the browser"
        } }
    }
}

/// Applies `change` to each domain, printing what it did; exits 1 after the last when one failed,
/// 64 for a text that is not a domain name, 69 without GIO (the XDG directories are GLib's).
private func changeKeptDomains(
    _ domains: [String], _ change: (KeptInBrowser, AssociatedDomain) throws(KeptInBrowserError) -> String
) throws {
    var names: [AssociatedDomain] = []
    for domain in domains {
        do { names.append(try AssociatedDomain(domain)) } catch {
            printError("waypost links: \(error)")
            throw ExitCode(64)
        }
    }
    let kept: KeptInBrowser
    do { kept = KeptInBrowser(AssociationDirectories(try XDGDirectories())) } catch {
        printError("waypost links: \(error)")
        throw ExitCode(69)
    }
    var failed = false
    for name in names {
        do { print(try change(kept, name)) } catch {
            printError("waypost links: \(error)")
            failed = true
        }
    }
    if failed { throw ExitCode(1) }
}
