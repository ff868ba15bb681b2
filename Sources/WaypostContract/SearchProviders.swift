import DBus

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
