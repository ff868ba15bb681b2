import Associations
import DBus
import Desktop
import ExternalEvents
import Logging
import WaypostContract

// http and https links (after `waypost install --web`): the app that owns the link by association
// gets it, routed to a scene like any link; every other web link goes to the user's browser.
extension Dispatcher {
    /// Where a web link goes: the owning app when both sides agree (or a user rule names an entry),
    /// else the browser. An owning app that cannot take it (not installed any more, launch fails,
    /// every scene refuses) does not lose the link: the browser gets it, since the user clicked a web
    /// link and must see the page. A timeout is not a refusal (the app may have it), so it is reported.
    func openWebLink(_ pending: PendingEvent, uri: String, scheme: String) async throws(DispatchError) -> Outcome {
        // A link that is not a well-formed web URL is owned by nobody: the browser shows it. The
        // opener is awaited only when a rule naming openers is reached.
        let ownership: OwnershipDecision
        if let decided = webLinks.decide(url: uri, opener: .pending) { ownership = decided } else {
            ownership = webLinks.decide(url: uri, opener: await pending.opener?.value().appID)
        }
        if case .browser(.overBudget(let source, _)) = ownership, webLinks.isFirstOverBudget(source) {
            logger.warning("\(source) costs more to match than a decision may: its links go to the browser (\(ownership))")
        }
        guard case .app(let id, _) = ownership else {
            return try await openInBrowser(uri, scheme: scheme, pending.platformData, because: .ownership(ownership))
        }
        if let opener = await pending.opener?.value(), let loop = Self.selfLoop(ownership, id, opener) {
            return try await openInBrowser(uri, scheme: scheme, pending.platformData, because: .text(loop))
        }
        let entry: ApplicationEntry
        do { entry = try directory.entry(id: id) } catch {
            return try await openInBrowser(uri, scheme: scheme, pending.platformData, because: .text("\(ownership), but \(error)"))
        }
        do {
            var outcome = entry.participates
                ? try await deliver(pending, to: entry)
                : try await handOverToNonParticipant(uri, entry, pending.platformData)
            outcome.ownership = ownership
            return outcome
        } catch {
            if case .timeout = error { throw error }
            logger.info("\(id) could not take \(uri) (\(error)); it goes to the browser")
            return try await openInBrowser(uri, scheme: scheme, pending.platformData, because: .text("\(ownership), but \(error)"))
        }
    }

    /// The decision `openWebLink` would take now: the owner and the association (details entry and
    /// component) that decided, or why none did and which browser would show the page.
    func explainWebLink(_ uri: String, scheme: String, opener: Opener?) throws(DispatchError) -> Outcome {
        let ownership = webLinks.decide(url: uri, opener: opener?.appID)
        if case .app(let id, _) = ownership, let opener, let loop = Self.selfLoop(ownership, id, opener) {
            let browser = try self.browser(forScheme: scheme, uri: uri)
            return Outcome(action: .fallback, appID: browser.id, rule: "browser", preface: "\(loop); the browser \(browser.id) would get it")
        }
        if case .app(let id, _) = ownership, let entry = try? directory.entry(id: id) {
            guard entry.participates else {
                return Outcome(action: .fallback, appID: id, rule: "association",
                               preface: "\(ownership.description); \(id) does not take part in Waypost and would be started with the link")
            }
            guard registry.isReady(id), let router = registry.router(of: id) else {
                return Outcome(action: .launch, appID: id, rule: "association",
                               preface: "\(ownership.description); it is not running: it would be started and the link routed once it declares its scenes")
            }
            var outcome = Outcome(router.route(.url(uri)), app: id, launched: false)
            outcome.preface = ownership.description + ";"
            if outcome.sceneID == nil && outcome.declarationID == nil {
                let browser = try? self.browser(forScheme: scheme, uri: uri)
                outcome.preface = "\(ownership.description); no scene of \(id) takes it, so the browser \(browser?.id ?? "(none installed)") would get it;"
            }
            return outcome
        }
        let browser = try self.browser(forScheme: scheme, uri: uri)
        return Outcome(action: .fallback, appID: browser.id, rule: "browser",
                       preface: "\(ownership.description); the browser \(browser.id) would get it")
    }

    /// The self-loop guard: an app that opens a link it owns is handing the page to the browser on
    /// purpose (as Safari keeps a same-domain tap in the browser); the reason, or nil.
    static func selfLoop(_ ownership: OwnershipDecision, _ owner: String, _ opener: Opener) -> String? {
        guard opener.appID == owner else { return nil }
        return "\(ownership.description), but \(owner) opened it itself, so it goes to the browser (no loop back into the app)"
    }

    /// Why a web link goes to the browser: the ownership decision, described only when someone
    /// reads the reason (every unowned link takes this path), or a sentence.
    enum BrowserBecause {
        case ownership(OwnershipDecision)
        case text(String)
    }

    /// Hands a web link to the user's browser: the one `install --web` recorded, else the best
    /// installed handler of the scheme, never Waypost itself (nor an entry that would hand it back).
    func openInBrowser(
        _ uri: String, scheme: String, _ platformData: LaunchPlatformData, because reason: BrowserBecause
    ) async throws(DispatchError) -> Outcome {
        let browser = try self.browser(forScheme: scheme, uri: uri)
        var outcome = try await handOverToNonParticipant(uri, browser, platformData)
        outcome.rule = "browser"
        switch reason {
        case .ownership(let ownership):
            outcome.ownership = ownership
            outcome.preface = "the browser \(browser.id) gets it"
        case .text(let text):
            outcome.preface = "\(text); the browser \(browser.id) gets it"
        }
        return outcome
    }

    /// The browser for `scheme`: the default recorded by `install --web`, else the first installed
    /// handler of the scheme (the user's default first) that is not Waypost in disguise.
    /// - Throws: `noHandler` naming the recorded browser when none is left.
    func browser(forScheme scheme: String, uri: String) throws(DispatchError) -> ApplicationEntry {
        let type = "x-scheme-handler/" + scheme
        if let recorded = directory.previousDefault(forType: type, excluding: configuration.ownEntryID),
           !handsLinksBack(recorded) {
            return recorded
        }
        let candidates: [ApplicationEntry]
        do { candidates = try directory.entries(forScheme: scheme) } catch {
            throw .invalidURI(uri, reason: error.description)
        }
        guard let browser = candidates.first(where: { !handsLinksBack($0) }) else {
            throw .noHandler(uri, reason: "no browser is installed for \(type) (Waypost never hands a link to itself)")
        }
        return browser
    }

    /// Whether opening a link with `entry` would bring it straight back to Waypost: its own entry, an
    /// entry that runs this very program, or one that runs a generic opener (`xdg-open %u` as a
    /// "browser" left in mimeapps.list). Without this guard a link would go round for ever.
    func handsLinksBack(_ entry: ApplicationEntry) -> Bool {
        Self.handsLinksBack(entry, ownID: configuration.ownEntryID, ownProgram: configuration.ownExecutable)
    }

    static func handsLinksBack(_ entry: ApplicationEntry, ownID: String, ownProgram: String?) -> Bool {
        if entry.id == ownID { return true }
        if let program = entry.executablePath {
            if program == ownProgram { return true }
            let name = program.split(separator: "/").last.map(String.init) ?? program
            if Self.genericOpeners.contains(name) { return true }
        }
        return false
    }

    /// Programs that only ask the desktop's default handler, which for http and https is Waypost.
    static let genericOpeners: Set<String> = ["xdg-open", "gio", "gvfs-open", "kde-open", "kde-open5", "exo-open", "waypost"]
}
