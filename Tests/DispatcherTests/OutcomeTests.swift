import Associations
@testable import Dispatcher
import ExternalEvents
import Planning
import Testing
import WaypostContract

/// An outcome's reason as `Explain`, `Routed` and the log show it: the plan's step, rendered when read.
@Suite("outcome reasons")
struct OutcomeTests {
    static let browser = InstalledApp(id: "org.example.Browser", participates: false)

    @Test("a web link's ownership comes first, then where it goes, then what was done")
    func ownershipFirst() {
        let step = Step(.browser(Self.browser), rule: .browser, facts: [.ownership(.browser(because: .plainHTTP)), .browser(app: Self.browser.id)])
        var outcome = Outcome(step, launched: false)
        #expect(outcome.action == .fallback)
        #expect(outcome.rule == .browser)
        #expect(outcome.reason
            == "the browser: an http link is never a universal link; only https ones are; the browser org.example.Browser gets it")
        outcome.preface = "it was started with the link"
        #expect(outcome.reason.hasSuffix("gets it; it was started with the link"))
    }

    @Test("a scene step delivered to an app started for it is a launch")
    func launched() {
        let step = Step(.openScene(app: "a", scene: "s"), rule: .preferring, facts: [])
        #expect(Outcome(step, launched: true).action == .launch)
        #expect(Outcome(step, launched: false).action == .deliver)
        #expect(Outcome(step, launched: false).sceneID == "s")
    }

    @Test("Open answers alike when outcomes differ only in why")
    func answersAlike() {
        let plain = Outcome(action: .deliver, appID: "a", sceneID: "s", rule: .preferring)
        var explained = plain
        explained.preface = "more"
        #expect(plain.answersAlike(explained))
        var elsewhere = plain
        elsewhere.sceneID = "t"
        #expect(!plain.answersAlike(elsewhere))
    }
}
