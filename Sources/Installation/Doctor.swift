public import Desktop

/// One thing `waypost doctor` checked: what it found and, when something is wrong, the command
/// or edit that fixes it.
public struct Finding: Sendable, Hashable {
    public enum Severity: Sendable, Hashable { case ok, note, problem }
    public let severity: Severity
    public let summary: String
    public let fix: String?

    public init(_ severity: Severity, _ summary: String, fix: String? = nil) {
        self.severity = severity
        self.summary = summary
        self.fix = fix
    }
}

/// What the desktop does with links now, checked against what Waypost needs.
public struct Doctor: Sendable {
    public let layout: InstallLayout
    /// How to run the fixing command for this layout (`waypost install --user`, …).
    public let installCommand: String
    let catalog: ApplicationCatalog
    let directories: XDGDirectories
    let own = HandlerFiles.desktopFileID

    /// - Throws: `GIOLoadError` when GIO, which answers every check, cannot be opened.
    public init(layout: InstallLayout, installCommand: String) throws(GIOLoadError) {
        self.layout = layout
        self.installCommand = installCommand
        catalog = try ApplicationCatalog()
        directories = try XDGDirectories()
    }

    /// - Parameter activatable: whether the session bus lists `io.waypost.Dispatcher` as activatable
    ///   (nil when no bus could be asked).
    public func check(activatable: Bool?) -> [Finding] {
        var findings: [Finding] = []
        findings += handlerFindings(activatable: activatable)
        let record: TakeoverRecord?
        do { record = try TakeoverRecord.load(path: layout.record) } catch {
            findings.append(Finding(.problem, "the record of previous defaults is damaged: \(error)", fix: "remove it, then run `\(installCommand)`"))
            record = nil
        }
        do { _ = try MimeAppsList(path: layout.mimeAppsList) } catch {
            findings.append(Finding(.problem, "\(error)", fix: "correct that line, then run `waypost refresh`"))
        }
        findings += routingFindings(record: record)
        findings += searchFindings()
        findings += handoffFindings()
        for case .unreadable(_, let file, let reason) in catalog.unreadableEntries() {
            var summary = "\(file) is ignored by the desktop: \(reason)"
            if let bytes = (try? Files.read(file)) ?? nil {
                do { _ = try KeyFileText(bytes: bytes, file: file) } catch { summary = "\(file) is ignored by the desktop: \(error)" }
            }
            findings.append(Finding(.problem, summary, fix: "correct or remove \(file)"))
        }
        return findings
    }

    func handlerFindings(activatable: Bool?) -> [Finding] {
        var findings: [Finding] = []
        do {
            let entry = try catalog.entry(id: own)
            findings.append(Finding(.ok, "handler entry \(entry.filePath) runs \(entry.executablePath ?? "?")"))
        } catch {
            findings.append(Finding(.problem, "the handler entry is not usable: \(error)", fix: "run `\(installCommand)`"))
        }
        let services = ([directories.dataHome] + directories.systemDataDirectories).map { $0 + "/dbus-1/services/\(HandlerFiles.busName).service" }
        if let service = services.first(where: Files.exists) {
            let exec = serviceProgram(service)
            if let exec, Files.isExecutable(exec) {
                findings.append(Finding(.ok, "D-Bus activation file \(service) starts \(exec)"))
            } else {
                findings.append(Finding(.problem, "\(service) starts \(exec ?? "nothing"), which is not an executable program", fix: "run `\(installCommand)`"))
            }
        } else {
            findings.append(Finding(.problem, "no D-Bus activation file for \(HandlerFiles.busName)", fix: "run `\(installCommand)`"))
        }
        switch activatable {
        case true?: findings.append(Finding(.ok, "the session bus can start the dispatcher"))
        case false?:
            findings.append(Finding(.problem, "the session bus cannot start \(HandlerFiles.busName)",
                                    fix: "run `\(installCommand)`; if it still fails, run `waypost daemon --verbose` to see why"))
        case nil: findings.append(Finding(.note, "no session bus to ask whether the dispatcher is activatable"))
        }
        return findings
    }

    func routingFindings(record: TakeoverRecord?) -> [Finding] {
        var findings: [Finding] = []
        var declared: Set<String> = []
        let participating = catalog.participatingEntries().filter { $0.desktopFileID != own }
        if participating.isEmpty { findings.append(Finding(.note, "no installed app opts in with X-Waypost=true")) }
        for entry in participating {
            for scheme in entry.schemes {
                let type = "x-scheme-handler/" + scheme
                declared.insert(type)
                let current = catalog.defaultHandlerID(forType: type)
                if current == own {
                    findings.append(Finding(.ok, "\(scheme): links go through Waypost to \(entry.id)"))
                } else {
                    findings.append(Finding(.problem, "\(scheme): \(entry.id) opts in but \(current ?? "no app") is the default, so links bypass Waypost",
                                            fix: record == nil ? "run `\(installCommand)`" : "run `waypost refresh`"))
                }
            }
            for type in entry.contentTypes where record?.previousDefaults[type] != nil {
                declared.insert(type)
                let routed = catalog.defaultHandlerID(forType: type) == own
                findings.append(routed
                    ? Finding(.ok, "\(type) files go through Waypost to \(entry.id)")
                    : Finding(.problem, "\(type) files bypass Waypost", fix: "run `waypost refresh`"))
            }
        }
        findings += webFindings(record: record, participating: participating, declared: &declared)
        for type in record?.types ?? [] {
            if !declared.contains(type) {
                findings.append(Finding(.problem, "stale: \(type) is still handed to Waypost but no opted-in app declares it",
                                        fix: "run `waypost refresh`"))
            }
            for id in record?.previousDefaults[type] ?? [] where (try? catalog.entry(id: id)) == nil {
                findings.append(Finding(.note, "\(type) fell back to \(id) before, which is no longer installed"))
            }
        }
        return findings
    }

    /// What xdg-desktop-portal remembered for a scheme (its permission store's `desktop-used-apps`
    /// table): for each calling app (`""`: apps outside a sandbox), the app it opens the scheme's links
    /// with without asking; and whether the user asked to be asked always.
    public struct PortalChoices: Sendable, Hashable {
        public var remembered: [String: String]
        public var alwaysAsk: Bool

        public init(remembered: [String: String], alwaysAsk: Bool) {
            self.remembered = remembered
            self.alwaysAsk = alwaysAsk
        }
    }

    /// The schemes handed over to Waypost, as `x-scheme-handler/…` types (whose portal choices
    /// `portalFindings` reads).
    public func handedOverSchemes() -> [String] {
        ((try? TakeoverRecord.load(path: layout.record)) ?? nil)?.types.filter(Installer.isScheme) ?? []
    }

    /// How the OpenURI portal (Chromium's links, every Flatpak app's) opens the schemes handed to
    /// Waypost. Portal 1.16 opens a link without its "Open With…" dialog when GIO recommends one app
    /// for the scheme, and then with the choice it remembered for the calling app if any, else the
    /// default.
    /// - Parameter choices: scheme type → what the portal remembered; nil when its permission store
    ///   could not be asked (no portal on this bus).
    public func portalFindings(choices: [String: PortalChoices]?) -> [Finding] {
        var findings: [Finding] = []
        let schemes = handedOverSchemes()
        var asking: [String] = []
        for type in schemes {
            let scheme = String(type.dropFirst("x-scheme-handler/".count))
            let recommended = catalog.recommendedHandlerIDs(forType: type)
            if recommended != [own] {
                asking.append(scheme)
                findings.append(Finding(.problem, "\(scheme): the portal asks which app opens its links (Chromium's, Flatpak apps'): GIO recommends \(recommended.isEmpty ? "no app" : recommended.joined(separator: ", "))",
                                        fix: "run `waypost refresh`"))
            }
            guard let choice = choices?[type] else { continue }
            if choice.alwaysAsk {
                findings.append(Finding(.problem, "\(scheme): the portal always asks which app opens its links (its \"always ask\" setting)",
                                        fix: "clear it (and what the portal remembered for the scheme): \(Self.permissionStoreCommand("Delete", type: type))"))
            }
            for (app, chosen) in choice.remembered.sorted(by: { $0.key < $1.key }) where chosen + ".desktop" != own {
                let from = app.isEmpty ? "apps outside a sandbox (Chromium, …)" : app
                findings.append(Finding(.problem, "\(scheme): the portal sends links from \(from) straight to \(chosen), past Waypost (a choice it remembered from its dialog)",
                                        fix: "forget it: \(Self.permissionStoreCommand("DeletePermission", type: type, app: app))"))
            }
        }
        if !schemes.isEmpty && asking.isEmpty {
            let names = schemes.map { String($0.dropFirst("x-scheme-handler/".count)) }.joined(separator: ", ")
            findings.append(Finding(.ok, "the portal opens \(names) links with Waypost, without asking"))
        }
        return findings
    }

    /// A `gdbus` command line calling the portal's permission store.
    static func permissionStoreCommand(_ member: String, type: String, app: String? = nil) -> String {
        "gdbus call --session --dest org.freedesktop.impl.portal.PermissionStore --object-path /org/freedesktop/impl/portal/PermissionStore "
            + "--method org.freedesktop.impl.portal.PermissionStore.\(member) desktop-used-apps \(type)" + (app.map { " '\($0)'" } ?? "")
    }

    /// http and https after `install --web`: still Waypost's, or taken back by a browser; and apps
    /// that claim domains whose links cannot reach them.
    func webFindings(record: TakeoverRecord?, participating: [ApplicationEntry], declared: inout Set<String>) -> [Finding] {
        var findings: [Finding] = []
        let claimants = participating.filter { !$0.associatedDomains.isEmpty }
        guard let record, record.web else {
            for entry in claimants {
                findings.append(Finding(.note, "\(entry.id) claims \(entry.associatedDomains.joined(separator: ", ")), but web links do not go through Waypost",
                                        fix: "run `waypost install --web` for its links to open in it"))
            }
            return findings
        }
        let types = ["x-scheme-handler/http", "x-scheme-handler/https"] + (record.html ? ["text/html"] : [])
        for type in types {
            declared.insert(type)
            let browser = record.previousDefaults[type]?.first ?? "no browser"
            let current = catalog.defaultHandlerID(forType: type)
            if current == own {
                findings.append(Finding(.ok, "\(type): web links go through Waypost; those no app owns go to \(browser)"))
            } else {
                findings.append(Finding(.problem, "\(type): \(current ?? "no app") took the default back from Waypost, so universal links open in the browser",
                                        fix: "run `waypost install --web` to take it again, or `waypost uninstall --web` to leave web links to the browser"))
            }
        }
        for entry in claimants {
            findings.append(Finding(.ok, "\(entry.id) claims \(entry.associatedDomains.joined(separator: ", ")) (see `waypost links list`)"))
        }
        return findings
    }

    /// The program a `.service` file's `Exec=` runs.
    func serviceProgram(_ path: String) -> String? {
        guard let bytes = (try? Files.read(path)) ?? nil, let text = try? KeyFileText(bytes: bytes, file: path),
              let exec = text.entry("Exec", in: "D-BUS Service")?.value
        else { return nil }
        if exec.hasPrefix("\"") { return exec.dropFirst().split(separator: "\"").first.map(String.init) }
        return exec.split(separator: " ").first.map(String.init)
    }
}
