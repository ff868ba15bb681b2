import ArgumentParser
import Browsers
import Desktop
import Dispatcher
import FoundationEssentials
import Handoff
import Planning

extension Links {
    /// `waypost links browsers`: the installed browsers, their profiles, and the destinations to
    /// write in rules and choices for each.
    struct BrowserList: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "browsers",
            abstract: "List the installed browsers, their profiles and the destinations that name them.",
            discussion: """
                One block per entry that opens https links, in the order the dispatcher picks a browser: \
                "ID: NAME", then one indented line per destination: the destination, a tab, and what it \
                is. A profile's reads "ID#profile=NAME", "directory DIR" and, on the one the browser opens \
                when told none, "default"; "ID#private" opens a private window. Profiles are read from \
                the browser's own files (Chromium's Local State, Firefox's profiles.ini). Exits 69 when \
                GIO cannot be opened.
                """)

        func run() throws {
            let catalog: ApplicationCatalog
            let xdg: XDGDirectories
            do { (catalog, xdg) = (try ApplicationCatalog(), try XDGDirectories()) } catch {
                printError("waypost links browsers: \(error)")
                throw ExitCode(69)
            }
            let homes = BrowserHomes(home: ProcessInfo.processInfo.environment["HOME"] ?? "", configHome: xdg.configHome)
            let entries: [ApplicationEntry]
            do { entries = try Dispatcher.installedBrowsers(in: catalog) } catch {
                printError("waypost links browsers: \(error)")
                throw ExitCode(1)
            }
            if entries.isEmpty { print("no installed entry opens https links") }
            for entry in entries { print(Self.block(entry, homes: homes)) }
        }

        /// The lines for one entry; every name from a file or an entry shown as outside text.
        static func block(_ entry: ApplicationEntry, homes: BrowserHomes) -> String {
            func shown(_ text: String) -> String { OutsideText.shown(text, limit: 200) }
            let id = shown(entry.id)
            var lines: [String] = []
            let found: BrowserProfiles
            do { found = try BrowserProfiles.read(of: entry, homes: homes) } catch {
                if case .notABrowser = error {
                    return "\(id): \(shown(entry.name)) (no browser whose profiles Waypost knows)\n  \(id)\tits usual window"
                }
                return "\(id): \(shown(entry.name))\n  \(id)\tits usual window\n  (profiles unknown: \(shown(error.description)))"
            }
            let listed = found.profiles.isEmpty ? "no profile listed yet in" : "profiles from"
            lines.append("\(id): \(shown(entry.name)) (\(shown(found.browser.program)), \(listed) \(shown(found.source)))")
            lines.append("  \(id)\tits usual window")
            for profile in found.profiles {
                let destination = NamedDestination(app: entry.id, window: .profile(profile.name)).description
                lines.append("  \(shown(destination))\tdirectory \(shown(profile.directory))" + (profile.isDefault ? "\tdefault" : ""))
            }
            lines.append("  \(shown(NamedDestination(app: entry.id, window: .privateWindow).description))\ta private window")
            return lines.joined(separator: "\n")
        }
    }
}
