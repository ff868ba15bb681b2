public import DBus

/// Waypost's D-Bus contract as Swift: the names, members, errors and `a{sv}` dictionaries that
/// `dbus/io.waypost.Dispatcher1.xml` and `dbus/io.waypost.Application1.xml` document, written once
/// for the daemon, the client library and the command line. A test checks them against the XML.
public enum Contract {
    /// The daemon's well-known name on the session bus (D-Bus activatable).
    public static let busName: BusName = "io.waypost.Dispatcher"
    /// Where the daemon serves `io.waypost.Dispatcher1` and `org.freedesktop.Application`.
    public static let objectPath: ObjectPath = "/io/waypost/Dispatcher"
    /// What every error name of the contract starts with.
    public static let errorPrefix = "io.waypost.Error."

    /// The errors of the contract, `io.waypost.Error.<Name>`: what the dispatcher replies with, and
    /// the few an app replies with when it refuses an event (`Application1.errors`).
    public enum Failure: String, CaseIterable, Sendable {
        case invalidURI = "InvalidURI"
        case invalidArgument = "InvalidArgument"
        case noHandler = "NoHandler"
        case unknownApplication = "UnknownApplication"
        case notRegistered = "NotRegistered"
        case notOwner = "NotOwner"
        case unknownScene = "UnknownScene"
        case unknownDeclaration = "UnknownDeclaration"
        case sceneExists = "SceneExists"
        case programMismatch = "ProgramMismatch"
        case deliveryFailed = "DeliveryFailed"
        case launchFailed = "LaunchFailed"
        case timeout = "Timeout"
        case unlistedActivityType = "UnlistedActivityType"
        case userInfoTooLarge = "UserInfoTooLarge"
        case unknownActivity = "UnknownActivity"
        case storeFailed = "StoreFailed"
        case busy = "Busy"
        case budgetExceeded = "BudgetExceeded"
        case declarationMismatch = "DeclarationMismatch"
        case invalidReply = "InvalidReply"
        case appNotChosen = "AppNotChosen"
        case unknownShortcut = "UnknownShortcut"

        /// The failure an error name stands for; nil for a name outside the contract.
        public init?(_ name: ErrorName) {
            guard name.rawValue.hasPrefix(Contract.errorPrefix) else { return nil }
            self.init(rawValue: String(name.rawValue.dropFirst(Contract.errorPrefix.count)))
        }

        /// As it travels: `io.waypost.Error.<Name>`.
        public var errorName: ErrorName {
            // Every raw value is one valid element of an error name (the contract test reads them all).
            ErrorName(rawValue: Contract.errorPrefix + rawValue)!
        }
    }
}
