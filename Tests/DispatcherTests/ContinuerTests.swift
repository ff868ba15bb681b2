import DBus
import Desktop
@testable import Dispatcher
import Testing
import WaypostContract

/// Which app continues an activity, without a bus: the publisher while its entry lists the type,
/// else the one app that lists it, else the user's choice; never an order of ids.
@Suite("who continues an activity")
struct ContinuerTests {
    static let transfer = "org.bank.transfer"

    static func entry(_ id: String) -> ApplicationEntry {
        ApplicationEntry(
            id: id, filePath: "/apps/\(id).desktop", name: id, participates: true, schemes: [], contentTypes: [],
            activityTypes: [transfer], isDBusActivatable: false, startupNotify: false, exec: "/bin/true", tryExec: nil,
            executablePath: "/bin/true")
    }

    static func continuer(_ candidates: [String], publisher: String?, chosen: String? = nil) throws(DispatchError) -> String {
        try Dispatcher.continuer(
            ofActivityType: transfer, publishedBy: publisher, candidates: candidates.map(entry), chosen: chosen).id
    }

    @Test("the publisher continues its own activity, whoever else lists the type and whatever the user chose")
    func publisherFirst() throws {
        // The smallest desktop-file id used to win: aaa.evil.App took the bank's activity.
        #expect(try Self.continuer(["aaa.evil.App", "org.bank.App"], publisher: "org.bank.App") == "org.bank.App")
        #expect(try Self.continuer(["aaa.evil.App", "org.bank.App"], publisher: "org.bank.App", chosen: "aaa.evil.App") == "org.bank.App")
    }

    @Test("when the publisher cannot, one app that lists the type continues it; of several, the one the user chose")
    func choice() throws {
        #expect(try Self.continuer(["org.other.App"], publisher: "org.bank.App") == "org.other.App")
        #expect(try Self.continuer(["aaa.evil.App", "org.other.App"], publisher: "org.bank.App", chosen: "org.other.App") == "org.other.App")
        #expect(try Self.continuer(["aaa.evil.App", "org.other.App"], publisher: nil, chosen: "org.other.App") == "org.other.App")
    }

    @Test("of several apps with no choice among them, none: a named error listing them, never the first by id")
    func noChoice() {
        let candidates = ["org.other.App", "aaa.evil.App"]
        #expect(throws: DispatchError.appNotChosen(activityType: Self.transfer, candidates: ["aaa.evil.App", "org.other.App"], publisher: "org.bank.App")) {
            try Self.continuer(candidates, publisher: "org.bank.App")
        }
        // A choice of an app that does not list the type is no choice.
        #expect(throws: DispatchError.appNotChosen(activityType: Self.transfer, candidates: ["aaa.evil.App", "org.other.App"], publisher: nil)) {
            try Self.continuer(candidates, publisher: nil, chosen: "org.bank.App")
        }
        #expect(DispatchError.appNotChosen(activityType: Self.transfer, candidates: [], publisher: nil).failure.errorName.rawValue
            == "io.waypost.Error.AppNotChosen")
        #expect(throws: DispatchError.noHandler(Self.transfer, reason: "no installed app lists it in X-Waypost-Activity-Types")) {
            try Self.continuer([], publisher: "org.bank.App", chosen: "org.bank.App")
        }
    }
}
