public import DBus

/// The names of Waypost's D-Bus contract (`dbus/io.waypost.Dispatcher1.xml`,
/// `dbus/io.waypost.Application1.xml`), in one place for the daemon and its clients.
public enum Contract {
    public static let busName: BusName = "io.waypost.Dispatcher"
    public static let objectPath: ObjectPath = "/io/waypost/Dispatcher"
    public static let dispatcherInterface: InterfaceName = "io.waypost.Dispatcher1"
    public static let applicationInterface: InterfaceName = "io.waypost.Application1"
    public static let freedesktopApplication: InterfaceName = "org.freedesktop.Application"
    /// Prefix of every error the dispatcher replies with.
    public static let errorPrefix = "io.waypost.Error."

    /// The object path GIO uses for a DBusActivatable app: `/` for `.`, `_` for `-`, after a `/`.
    public static func applicationPath(forID id: String) -> ObjectPath {
        let path = "/" + String(id.map { $0 == "." ? "/" : $0 == "-" ? "_" : $0 })
        return (try? ObjectPath(path)) ?? "/"
    }
}

extension DispatchError {
    /// As the caller receives it on the bus.
    var busError: BusError {
        // Every case's name is a valid error-name component, so the name is always valid.
        BusError(ErrorName(rawValue: Contract.errorPrefix + name)!, description)
    }
}
