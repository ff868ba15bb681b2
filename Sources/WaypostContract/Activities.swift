public import DBus

// What openers read of user activities: CurrentActivity (GetCurrentActivity, CurrentActivityChanged)
// and SavedActivity (SearchActivities, ListSavedActivities) are generated from dbus/. Here: that the
// empty dictionary means no current activity.

extension Contract.CurrentActivity {
    /// Nil for the empty dictionary that says no scene has a current activity.
    /// - Throws: `KeyError` for a missing key or a value of the wrong type.
    public static func decode(_ current: [String: Variant]) throws(Contract.KeyError) -> Self? {
        current.isEmpty ? nil : try Self(current)
    }

    /// As it travels; `nil` is the empty dictionary.
    public static func variants(_ current: Self?) -> [String: Variant] {
        current?.variants ?? [:]
    }
}
