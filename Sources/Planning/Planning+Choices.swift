import Associations
import ExternalEvents

// The user's choice in a plan: destinations people name (a browser's profile or private window),
// remembered choices, and the step that asks when several candidates remain.
extension Planning {
    /// The steps that bring the event to a destination a person named: the entry as `reach` does, or
    /// a browser in the window named (a profile, a private window).
    mutating func reach(_ named: NamedDestination, facts: [Fact]) {
        guard let app = snapshot.installed.entry(id: named.app) else {
            lastFacts = facts.appending(.notInstalled(app: named.app))
            return
        }
        guard named.window != .usual else { return reach(app, facts: facts) }
        guard !refused.apps.contains(app.id) else {
            lastFacts = facts.appending(.refused(app: app.id))
            return
        }
        steps.append(Step(.browser(app, named.window), rule: .browser, facts: facts.appending(.browser(app: app.id))))
    }

    /// The opener's id for a choice of `scope`; `needsOpener` while it is pending and a choice
    /// limited to openers covers the scope, or (`asking`) the chooser would offer to limit it.
    func choiceOpener(for scope: ChoiceScope, asking: Bool) throws(PlanningError) -> String? {
        switch opener {
        case .known(let id): return id
        case .pending:
            if asking || snapshot.choices.namesOpeners(for: scope) { throw .needsOpener }
            return nil
        }
    }

    /// Among several candidates (the plan's own preference first): the one the user just picked,
    /// else the one remembered for `scope`, else the user is asked. A pick or a choice naming an
    /// app that is no candidate any more is passed over: a choice never takes an event to an app
    /// that no longer declares it.
    mutating func choose(
        among candidates: [NamedDestination], scope: ChoiceScope, because reason: AskReason, facts: [Fact], subject: String
    ) throws(PlanningError) {
        var facts = facts
        if let picked {
            guard candidates.contains(where: { $0.app == picked.app }) else {
                nowhere = .noHandler("\(picked.app), which you picked, no longer takes it")
                return
            }
            return reach(picked, facts: facts.appending(.picked(picked)))
        }
        let opener = try choiceOpener(for: scope, asking: false)
        if let choice = snapshot.choices.choice(for: scope, opener: opener) {
            if candidates.contains(where: { $0.app == choice.destination.app }) {
                return reach(choice.destination, facts: facts.appending(.remembered(choice)))
            }
            facts.append(.staleChoice(choice))
        }
        let left = candidates.filter { !refused.apps.contains($0.app) }
        guard left.count > 1 else {
            if let only = left.first { reach(only, facts: facts) } else { lastFacts = facts }
            return
        }
        let asker = try choiceOpener(for: scope, asking: true)
        let request = ChoiceRequest(candidates: left, scope: scope, opener: asker, subject: subject)
        steps.append(Step(.choose(request), rule: .none, facts: facts.appending(.ask(scope, candidates: left.map(\.description), because: reason))))
    }

    /// The user's choice of browser for a web link that goes to one: for its site, else for every
    /// link no app takes; only a choice naming an installed browser of the scheme counts.
    func rememberedBrowser(for uri: String, scheme: String) throws(PlanningError) -> RememberedChoice? {
        let book = snapshot.choices
        guard !book.isEmpty else { return nil }
        let browsers = try read { () throws(CatalogFailure) in try snapshot.installed.browsers(forScheme: scheme) }
        for scope in [ChoiceScope.site(Planner.host(of: uri)), .browser] {
            guard let choice = snapshot.choices.choice(for: scope, opener: try choiceOpener(for: scope, asking: false)) else { continue }
            if browsers.contains(where: { $0.id == choice.destination.app }) { return choice }
        }
        return nil
    }

    /// Who a user rule saying "ask" offers: the destinations it names after `ask`, else every
    /// installed browser of the scheme.
    func askCandidates(_ named: [String], scheme: String) throws(PlanningError) -> [NamedDestination] {
        let listed = named.filter { $0 != Planner.askRule }.compactMap(NamedDestination.init)
        guard listed.isEmpty else { return listed }
        return try read { () throws(CatalogFailure) in try snapshot.installed.browsers(forScheme: scheme) }.map { NamedDestination(app: $0.id) }
    }
}
