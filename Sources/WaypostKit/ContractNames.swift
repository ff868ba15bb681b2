import DBus

/// The names of Waypost's D-Bus contract (`dbus/io.waypost.Dispatcher1.xml`,
/// `dbus/io.waypost.Application1.xml`) that the client side speaks.
///
/// The `Dispatcher` module has the same names, but a client library must not depend on the daemon's
/// module; the XML is the contract both follow.
enum ContractNames {
    static let busName: BusName = "io.waypost.Dispatcher"
    static let objectPath: ObjectPath = "/io/waypost/Dispatcher"
    static let dispatcherInterface: InterfaceName = "io.waypost.Dispatcher1"
    static let applicationInterface: InterfaceName = "io.waypost.Application1"
    /// Where each process serves `io.waypost.Application1`; one object per connection.
    static let applicationPath: ObjectPath = "/io/waypost/Application"

    /// The errors an app replies with: the contract's own vocabulary (any name makes the
    /// dispatcher fall through to the next destination).
    static let unknownScene: ErrorName = "io.waypost.Error.UnknownScene"
    static let unknownDeclaration: ErrorName = "io.waypost.Error.UnknownDeclaration"
    static let noHandler: ErrorName = "io.waypost.Error.NoHandler"
    static let notDispatcher: ErrorName = "org.freedesktop.DBus.Error.AccessDenied"
    static let invalidArgument: ErrorName = "io.waypost.Error.InvalidArgument"
}
