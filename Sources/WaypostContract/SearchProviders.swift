public import DBus

// The desktops' search interfaces the daemon serves for saved activities, as dbus/ declares them:
// GNOME Shell's org.gnome.Shell.SearchProvider2 and KRunner's org.kde.krunner1.

extension Contract {
    /// `org.gnome.Shell.SearchProvider2` at `objectPath` on the daemon's bus name.
    public enum SearchProvider2 {
        public static let interface: InterfaceName = "org.gnome.Shell.SearchProvider2"
        public static let objectPath: ObjectPath = "/io/waypost/Dispatcher/SearchProvider"
        /// The most result ids `GetResultMetas` and `GetSubsearchResultSet` take in one call: a shell
        /// asks for a screenful, and passes back at most the 50 results it was given. More is
        /// `InvalidArgument`, refused before any id is looked up.
        public static let identifiersPerCall = 100

        /// A result's meta, as `GetResultMetas` returns it.
        public enum MetaKeys {
            public static let id = Key<String>("id")
            public static let name = Key<String>("name")
            public static let description = Key<String>("description")
            /// A themed icon name or a path, as GIO serialises an icon.
            public static let gicon = Key<String>("gicon")
            public static let all = [id.declaration, name.declaration, description.declaration, gicon.declaration]
        }

        public static let getInitialResultSet = Member.method(
            "GetInitialResultSet", in: [.init("terms", "as")], out: [.init("results", "as")])
        public static let getSubsearchResultSet = Member.method(
            "GetSubsearchResultSet", in: [.init("previous_results", "as"), .init("terms", "as")], out: [.init("results", "as")])
        public static let getResultMetas = Member.method(
            "GetResultMetas", in: [.init("identifiers", "as")], out: [.init("metas", "aa{sv}", keys: MetaKeys.all)])
        public static let activateResult = Member.method(
            "ActivateResult", in: [.init("identifier", "s"), .init("terms", "as"), .init("timestamp", "u")])
        public static let launchSearch = Member.method("LaunchSearch", in: [.init("terms", "as"), .init("timestamp", "u")])

        public static let members = [getInitialResultSet, getSubsearchResultSet, getResultMetas, activateResult, launchSearch]
    }

    /// `org.kde.krunner1` at `objectPath` on the daemon's bus name.
    public enum KRunner1 {
        public static let interface: InterfaceName = "org.kde.krunner1"
        public static let objectPath: ObjectPath = "/io/waypost/Dispatcher/KRunner"
        /// KRunner's match type for a result that may be what the user wants.
        public static let possibleMatch: Int32 = 30

        public static let actions = Member.method("Actions", out: [.init("matches", "a(sss)")])
        public static let match = Member.method("Match", in: [.init("query", "s")], out: [.init("matches", "a(sssida{sv})")])
        public static let run = Member.method("Run", in: [.init("matchId", "s"), .init("actionId", "s")])
        public static let teardown = Member.method("Teardown")
        public static let config = Member.method("Config", out: [.init("config", "a{sv}")])
        public static let setActivationToken = Member.method("SetActivationToken", in: [.init("token", "s")])

        public static let members = [actions, match, run, teardown, config, setActivationToken]
    }
}
