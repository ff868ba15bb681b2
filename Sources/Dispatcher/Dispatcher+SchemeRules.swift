import Associations
import Desktop
import Logging
import WaypostContract

// Custom-scheme links by the user's rules (`"scheme": "zoommtg"` in a file of
// $XDG_CONFIG_HOME/waypost/associations): a rule that names an entry sends the link there, before
// the scheme's own handlers; a rule naming openers is the only reason to wait for the opener.
extension Dispatcher {
    /// The outcome when a user rule gives a custom-scheme link to an entry; nil when none does (no
    /// rule, an `exclude`, an entry that is gone or would hand the link back, or that could not take
    /// it): the scheme's handlers then get it as always.
    func openBySchemeRule(_ pending: PendingEvent, uri: String) async throws(DispatchError) -> Outcome? {
        var ruling = webLinks.decide(schemeLink: uri, opener: .pending)
        if case .needsOpener = ruling {
            ruling = webLinks.decide(schemeLink: uri, opener: .known(await pending.opener?.value().appID))
        }
        guard case .app(let id, let ownership) = ruling, let entry = ruledEntry(id, for: uri) else { return nil }
        do {
            var outcome = entry.participates
                ? try await deliver(pending, to: entry)
                : try await handOverToNonParticipant(uri, entry, pending.platformData)
            outcome.preface = ["\(id), by \(ownership)", outcome.preface].compactMap { $0 }.joined(separator: "; ")
            return outcome
        } catch {
            if case .timeout = error { throw error }
            logger.info("\(id) could not take \(uri) (\(error)); the scheme's handlers get it")
            return nil
        }
    }

    /// What `openBySchemeRule` would do, for `explain`: the outcome when a rule names an entry, or
    /// the rule's reason to leave the link to the scheme's handlers; (nil, nil) when no rule covers it.
    func explainSchemeRule(_ uri: String, opener: Opener?) -> (outcome: Outcome?, note: String?) {
        switch webLinks.decide(schemeLink: uri, opener: .known(opener?.appID)) {
        case .noRule, .needsOpener:
            return (nil, nil)
        case .handlers(let reason):
            return (nil, "\(reason);")
        case .app(let id, let ownership):
            guard let entry = ruledEntry(id, for: uri) else {
                return (nil, "\(id), by \(ownership), but it is not an installed entry that can take it;")
            }
            let action: Outcome.Action = !entry.participates ? .fallback : registry.isReady(id) ? .deliver : .launch
            return (Outcome(action: action, appID: id, rule: "user rule", preface: "\(id), by \(ownership)"), nil)
        }
    }

    /// The entry a rule names, unless it is gone or would bring the link straight back.
    private func ruledEntry(_ id: String, for uri: String) -> ApplicationEntry? {
        guard let entry = try? directory.entry(id: id), !handsLinksBack(entry) else {
            logger.info("a user rule names \(id) for \(uri), which is not installed or would hand it back; the scheme's handlers get it")
            return nil
        }
        return entry
    }
}
