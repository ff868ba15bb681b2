public import DBus

/// Waypost's D-Bus contract as Swift: the names, members, errors and `a{sv}` dictionaries that the
/// files of `dbus/` state, for the daemon, the client library and the command line. The names,
/// members, keys, value sets, error table, policies and the dictionaries' structs with their codecs
/// are generated from the XML (`Generated/`, `make contract`); what is written here by hand is what
/// keys cannot state: rules checked on top of a codec (`DictionaryRules`), `SceneEvent`, and the
/// conversions to the routing core's types.
public enum Contract {
    /// The daemon's well-known name on the session bus (D-Bus activatable).
    public static let busName: BusName = Dispatcher1.busName
    /// Where the daemon serves `io.waypost.Dispatcher1` and `org.freedesktop.Application`.
    public static let objectPath: ObjectPath = Dispatcher1.objectPath
    /// Where the daemon serves `io.waypost.Handoff1`.
    public static let handoffObjectPath: ObjectPath = Handoff1.objectPath
}

extension Contract.Failure {
    /// The failure an error name stands for; nil for a name outside the contract.
    public init?(_ name: ErrorName) {
        guard name.rawValue.hasPrefix(Contract.errorPrefix) else { return nil }
        self.init(rawValue: String(name.rawValue.dropFirst(Contract.errorPrefix.count)))
    }

    /// As it travels: `io.waypost.Error.<Name>`.
    public var errorName: ErrorName {
        // Every raw value is one valid element of an error name (the generator accepts no other).
        ErrorName(rawValue: Contract.errorPrefix + rawValue)!
    }
}
