import Associations
@testable import Dispatcher
import Testing
import WaypostContract

/// An outcome's reason as `Explain`, `Routed` and the log show it: the ownership decision of a web
/// link is kept as it is and said first, as the sentence built when routing used to say it.
@Suite("outcome reasons")
struct OutcomeTests {
    @Test("a web link's ownership comes first, then what was done with it")
    func ownershipFirst() {
        var browser = Outcome(action: .fallback, appID: "org.example.Browser", rule: "browser", preface: "the browser org.example.Browser gets it")
        browser.ownership = .browser(because: .plainHTTP)
        #expect(browser.reason
            == "the browser: an http link is never a universal link; only https ones are; the browser org.example.Browser gets it")
        var delivered = Outcome(action: .deliver, appID: "org.example.Photos", sceneID: "s1", rule: "preferring")
        delivered.ownership = .browser(because: .userInfo)
        #expect(delivered.reason.hasPrefix("the browser: "))
        #expect(!delivered.reason.contains(";"), "no preface: nothing joins the ownership to an empty sentence")
    }

    @Test("Open answers alike when outcomes differ only in why")
    func answersAlike() {
        let plain = Outcome(action: .deliver, appID: "a", sceneID: "s", rule: "preferring")
        var explained = plain
        explained.ownership = .browser(because: .plainHTTP)
        explained.preface = "more"
        #expect(plain.answersAlike(explained))
        var elsewhere = plain
        elsewhere.sceneID = "t"
        #expect(!plain.answersAlike(elsewhere))
    }
}
