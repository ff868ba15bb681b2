import DBus
import WaypostContract

// io.waypost.Dispatcher1's user-activity members: what scenes publish, what is saved, what openers read.
extension DispatcherService {
    var activityMethods: [Method] {
        typealias Members = Contract.Dispatcher1
        let members = [
            Members.setCurrentActivity, Members.clearCurrentActivity, Members.deleteSavedActivities,
            Members.deleteAllSavedActivities, Members.getCurrentActivity, Members.searchActivities,
            Members.listSavedActivities, Members.continueSavedActivity, Members.forgetSavedActivities,
        ]
        return members.map { member in
            method(member) { call in throw BusError(.notSupported, "\(call.member) is not implemented yet") }
        }
    }
}
