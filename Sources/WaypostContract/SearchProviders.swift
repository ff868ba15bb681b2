public import DBus

// The desktops' search interfaces the daemon serves for saved activities (Generated/SearchProvider2.swift
// and KRunner1.swift, from dbus/): GNOME Shell's org.gnome.Shell.SearchProvider2 and KRunner's
// org.kde.krunner1. What is here is the daemon's choice within them.

extension Contract.SearchProvider2 {
    /// The most result ids `GetResultMetas` and `GetSubsearchResultSet` take in one call: a shell
    /// asks for a screenful, and passes back at most the 50 results it was given. More is
    /// `InvalidArgument`, refused before any id is looked up.
    public static let identifiersPerCall = 100

    /// A result's meta, as `GetResultMetas` returns it (`SearchResultMeta`'s keys, by the name the
    /// daemon's search provider knows).
    public typealias MetaKeys = Contract.SearchResultMeta.Keys
}

extension Contract.KRunner1 {
    /// KRunner's match type for a result that may be what the user wants.
    public static let possibleMatch: Int32 = 30
}

extension Contract {
    /// A saved activity as GNOME Shell's search shows it (`GetResultMetas`): its id, its title, and
    /// the app it continues in.
    public struct SearchResultMeta: Sendable, Hashable {
        public var id: String
        /// The activity's title.
        public var name: String
        /// The app's name.
        public var description: String
        /// The app's `Icon=`: a themed icon name or a path, as GIO serialises an icon.
        public var gicon: String

        public init(id: String, name: String, description: String, gicon: String) {
            (self.id, self.name, self.description, self.gicon) = (id, name, description, gicon)
        }

        /// - Throws: `KeyError` for a missing key or a value of the wrong type.
        public init(_ fields: [String: Variant]) throws(KeyError) {
            id = try fields.required(Keys.id)
            name = try fields.required(Keys.name)
            description = try fields.required(Keys.description)
            gicon = try fields.required(Keys.gicon)
        }

        public var variants: [String: Variant] {
            var fields: [String: Variant] = [:]
            fields.insert(Keys.id, id)
            fields.insert(Keys.name, name)
            fields.insert(Keys.description, description)
            fields.insert(Keys.gicon, gicon)
            return fields
        }
    }
}
