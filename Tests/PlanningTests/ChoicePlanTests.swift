import Associations
import ExternalEvents
import Planning
import Testing

@Suite("the user's choice, planned")
struct ChoicePlanTests {
    static let contacts = InstalledApp(id: "org.example.Contacts", participates: true)
    static let notes = InstalledApp(id: "org.example.Notes", participates: true)
    static let shop = InstalledApp(id: "org.example.Shop", participates: true)
    static let shopLite = InstalledApp(id: "org.example.ShopLite", participates: true)
    static let chromium = InstalledApp(id: "chromium", participates: false)
    static let firefox = InstalledApp(id: "firefox-esr", participates: false)
    static let link = PlannedEvent.link("contacts://show?id=judy", scheme: "contacts")
    static let bothOwn = #"{"applinks": {"details": [{"appIDs": ["org.example.Shop", "org.example.ShopLite"], "components": [{"/": "*"}]}]}}"#

    func desk() -> Desk {
        var desk = Desk()
        desk.install(Self.contacts, schemes: ["contacts"])
        desk.install(Self.notes, schemes: ["contacts"])
        desk.install(Self.shop)
        desk.install(Self.shopLite)
        desk.install(Self.chromium)
        desk.install(Self.firefox)
        desk.browsers["https"] = Self.chromium
        desk.otherBrowsers["https"] = [Self.firefox]
        return desk
    }

    func snapshot(_ choices: [RememberedChoice] = [], linksOff: Set<String> = [], owned: LinkOwnership? = nil) throws -> Snapshot {
        Snapshot(
            installed: desk(), running: Running(), ownership: try owned ?? ownership(),
            choices: ChoiceBook(choices, linksOff: linksOff))
    }

    static func choice(_ scope: ChoiceScope, _ destination: String, opener: String? = nil) -> RememberedChoice {
        RememberedChoice(scope: scope, opener: opener, destination: NamedDestination(destination)!, made: "2026-12-01")
    }

    @Test("two participating handlers of a scheme: the user is asked, the pick is planned, a remembered choice decides")
    func schemeHandlers() throws {
        let asked = try Planner.plan(Self.link, opener: .known("org.example.Mail"), snapshot())
        #expect(asked.first.destination == .choose(ChoiceRequest(
            candidates: [NamedDestination(app: Self.contacts.id), NamedDestination(app: Self.notes.id)],
            scope: .scheme("contacts"), opener: "org.example.Mail", subject: "contacts://show?id=judy")))
        #expect(asked.first.reason.contains("several participating apps declare the scheme"))

        let picked = try Planner.plan(Self.link, opener: .known(nil), snapshot(), picked: NamedDestination(app: Self.notes.id))
        #expect(picked.first.destination == .launch(app: Self.notes.id))
        #expect(picked.first.reason.contains("you picked org.example.Notes"))

        let remembered = try Planner.plan(Self.link, opener: .known(nil), snapshot([Self.choice(.scheme("contacts"), Self.notes.id)]))
        #expect(remembered.first.destination == .launch(app: Self.notes.id))
        #expect(remembered.first.reason.contains("your choice for contacts: links, made 2026-12-01"))
    }

    @Test("a choice of an app that no longer declares the scheme is passed over, and the user asked again")
    func staleChoice() throws {
        let stale = try Planner.plan(Self.link, opener: .known(nil), snapshot([Self.choice(.scheme("contacts"), "org.example.Gone")]))
        guard case .choose = stale.first.destination else { Issue.record("\(stale.first.destination)"); return }
        #expect(stale.first.reason.contains("names org.example.Gone, which no longer takes it"))
        // A pick of an app that is no candidate goes nowhere rather than to it.
        let wrongPick = try Planner.plan(Self.link, opener: .known(nil), snapshot(), picked: NamedDestination(app: "org.example.Gone"))
        guard case .nothing = wrongPick.first.destination else { Issue.record("\(wrongPick.first.destination)"); return }
    }

    @Test("a choice limited to one opener holds for that opener only, and needs the opener known")
    func openerScope() throws {
        let fromMail = Self.choice(.scheme("contacts"), Self.notes.id, opener: "org.example.Mail")
        #expect(throws: PlanningError.self) { try Planner.plan(Self.link, opener: .pending, snapshot([fromMail])) }
        let mail = try Planner.plan(Self.link, opener: .known("org.example.Mail"), snapshot([fromMail]))
        #expect(mail.first.destination == .launch(app: Self.notes.id))
        #expect(mail.first.reason.contains("opened from org.example.Mail"))
        let chat = try Planner.plan(Self.link, opener: .known("org.example.Chat"), snapshot([fromMail]))
        guard case .choose = chat.first.destination else { Issue.record("\(chat.first.destination)"); return }
        // One for every opener stands behind the opener's own.
        let everyone = Self.choice(.scheme("contacts"), Self.contacts.id)
        let both = try Planner.plan(Self.link, opener: .known("org.example.Chat"), snapshot([fromMail, everyone]))
        #expect(both.first.destination == .launch(app: Self.contacts.id))
    }

    @Test("after the picked app refused, nothing else is tried and nobody is asked again")
    func refusedPick() throws {
        var refused = Refusals()
        refused.apps = [Self.notes.id]
        let plan = try Planner.plan(Self.link, opener: .known(nil), snapshot(), refused: refused, picked: NamedDestination(app: Self.notes.id))
        guard case .nothing = plan.first.destination else { Issue.record("\(plan.first.destination)"); return }
        // Without a pick, one candidate left after a refusal gets it without asking.
        let rest = try Planner.plan(Self.link, opener: .known(nil), snapshot(), refused: refused)
        #expect(rest.first.destination == .launch(app: Self.contacts.id))
    }

    @Test("an https link two apps own: both and the browser are offered; a choice for the site decides")
    func owners() throws {
        let owned = try ownership(
            associations: ["shop.example": Self.bothOwn], claims: [Self.shop.id: ["shop.example"], Self.shopLite.id: ["shop.example"]])
        let event = PlannedEvent.link("https://shop.example/cart", scheme: "https")
        let asked = try Planner.plan(event, opener: .known(nil), snapshot(owned: owned))
        #expect(asked.first.destination == .choose(ChoiceRequest(
            candidates: [NamedDestination(app: Self.shop.id), NamedDestination(app: Self.shopLite.id), NamedDestination(app: "chromium")],
            scope: .site("shop.example"), opener: nil, subject: "https://shop.example/cart")))
        let chosen = try Planner.plan(
            event, opener: .known(nil), snapshot([Self.choice(.site("shop.example"), Self.shopLite.id)], owned: owned))
        #expect(chosen.first.destination == .launch(app: Self.shopLite.id))
        #expect(chosen.first.reason.contains("your choice for shop.example"))
        // Turning one app's links off leaves the other the only owner: nobody is asked.
        let off = try Planner.plan(event, opener: .known(nil), snapshot(linksOff: [Self.shop.id], owned: owned))
        #expect(off.first.destination == .launch(app: Self.shopLite.id))
        let bothOff = try Planner.plan(event, opener: .known(nil), snapshot(linksOff: [Self.shop.id, Self.shopLite.id], owned: owned))
        #expect(bothOff.first.destination == .browser(Self.chromium))
        #expect(bothOff.first.reason.contains("links are off"))
    }

    @Test("a user rule may name a browser profile or a private window, or say to ask")
    func ruleDestinations() throws {
        let work = #"{"hosts": ["work.example"], "applinks": {"details": [{"appIDs": ["chromium#profile=Work"], "components": [{}]}]}}"#
        let ask = #"{"hosts": ["news.example"], "applinks": {"details": [{"appIDs": ["ask", "chromium#private", "firefox-esr#profile=personal"], "components": [{}]}]}}"#
        let anyBrowser = #"{"hosts": ["any.example"], "applinks": {"details": [{"appIDs": ["ask"], "components": [{}]}]}}"#
        let owned = try ownership(rules: [("work.example", work), ("news.example", ask), ("any.example", anyBrowser)])
        let toWork = try Planner.plan(.link("https://work.example/", scheme: "https"), opener: .known(nil), snapshot(owned: owned))
        #expect(toWork.first.destination == .browser(Self.chromium, .profile("Work")))
        let news = try Planner.plan(.link("https://news.example/a", scheme: "https"), opener: .known(nil), snapshot(owned: owned))
        #expect(news.first.destination == .choose(ChoiceRequest(
            candidates: [NamedDestination("chromium#private")!, NamedDestination("firefox-esr#profile=personal")!],
            scope: .site("news.example"), opener: nil, subject: "https://news.example/a")))
        let picked = try Planner.plan(
            .link("https://news.example/a", scheme: "https"), opener: .known(nil), snapshot(owned: owned),
            picked: NamedDestination("firefox-esr#profile=personal"))
        #expect(picked.first.destination == .browser(Self.firefox, .profile("personal")))
        let any = try Planner.plan(.link("https://any.example/", scheme: "https"), opener: .known(nil), snapshot(owned: owned))
        guard case .choose(let request) = any.first.destination else { Issue.record("\(any.first.destination)"); return }
        #expect(request.candidates == [NamedDestination(app: "chromium"), NamedDestination(app: "firefox-esr")])
    }

    @Test("the browser fallback follows a choice for the site, else for every link no app takes")
    func browserChoice() throws {
        let event = PlannedEvent.link("https://elsewhere.example/", scheme: "https")
        let everywhere = try Planner.plan(event, opener: .known(nil), snapshot([Self.choice(.browser, "firefox-esr#private")]))
        #expect(everywhere.first.destination == .browser(Self.firefox, .privateWindow))
        #expect(everywhere.first.reason.contains("your choice for links no app takes"))
        let site = try Planner.plan(
            event, opener: .known(nil),
            snapshot([Self.choice(.browser, "firefox-esr#private"), Self.choice(.site("elsewhere.example"), "chromium#profile=Work")]))
        #expect(site.first.destination == .browser(Self.chromium, .profile("Work")))
        // A choice naming an app that is no browser does not take web links.
        let notBrowser = try Planner.plan(event, opener: .known(nil), snapshot([Self.choice(.browser, Self.notes.id)]))
        #expect(notBrowser.first.destination == .browser(Self.chromium))
    }

    @Test("destinations and scopes are written and read back alike; anything else is refused")
    func spelling() {
        for text in ["chromium", "chromium#private", "chromium#profile=Work", "firefox-esr#profile=Profile 1"] {
            #expect(NamedDestination(text)?.description == text)
        }
        for text in ["", "#private", "chromium#", "chromium#profile=", "chromium#incognito"] { #expect(NamedDestination(text) == nil) }
        for text in ["site:example.com", "scheme:zoommtg", "activity-type:org.example.show", "browser"] {
            #expect(ChoiceScope(text)?.description == text)
        }
        for text in ["site:", "host:example.com", "site:a b", "scheme"] { #expect(ChoiceScope(text) == nil) }
    }
}
