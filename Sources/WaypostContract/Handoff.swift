public import DBus

// io.waypost.Handoff1: activities other devices handed over (through KDE Connect), offered to the user.

extension Contract {
    public static let handoffObjectPath: ObjectPath = "/io/waypost/Handoff"

    /// `io.waypost.Handoff1`, which the daemon serves at `handoffObjectPath` (dbus/io.waypost.Handoff1.xml).
    public enum Handoff1 {
        public static let interface: InterfaceName = "io.waypost.Handoff1"

        public static let listOffers = Member.method("ListOffers", out: [.init("offers", "aa{sv}", keys: HandoffOffer.Keys.all)])
        public static let accept = Member.method(
            "Accept", in: [.init("offer_id", "s"), .init("platform_data", "a{sv}", keys: PlatformData.Keys.all)], out: [.init("outcome", "a{sv}", keys: RoutingOutcome.Keys.delivered)])
        public static let trustDevice = Member.method("TrustDevice", in: [.init("device_id", "s"), .init("trusted", "b")])
        public static let send = Member.method(
            "Send", in: [.init("device", "s"), .init("app_id", "s"), .init("webpage_only", "b")],
            out: [.init("device_name", "s"), .init("url", "s")])
        public static let offersChanged = Member.signal("OffersChanged", [])

        public static let all = [listOffers, accept, trustDevice, send, offersChanged]
    }

    /// One offer as `ListOffers` returns it.
    public struct HandoffOffer: Sendable, Hashable {
        public enum Keys {
            public static let id = Key<String>("id")
            public static let summary = Key<String>("summary")
            public static let activityType = Key<String>("activity-type")
            public static let title = Key<String>("title")
            public static let webpageURL = Key<String>("webpage-url")
            /// The KDE Connect device id; absent for an offer no device was seen to share.
            public static let deviceID = Key<String>("device-id")
            public static let device = Key<String>("device")
            public static let received = Key<Int64>("received")
            public static let expires = Key<Int64>("expires")
            public static let all = [
                id.declaration, summary.declaration, activityType.declaration, title.declaration, webpageURL.declaration,
                deviceID.declaration, device.declaration, received.declaration, expires.declaration,
            ]
        }

        public var id: String
        public var summary: String
        public var activityType: String
        public var title: String?
        public var webpageURL: String?
        public var deviceID: String?
        public var device: String
        public var received: Int64
        public var expires: Int64

        public init(
            id: String, summary: String, activityType: String, title: String?, webpageURL: String?, deviceID: String?,
            device: String, received: Int64, expires: Int64
        ) {
            (self.id, self.summary, self.activityType, self.title, self.webpageURL) = (id, summary, activityType, title, webpageURL)
            (self.deviceID, self.device, self.received, self.expires) = (deviceID, device, received, expires)
        }

        /// - Throws: `KeyError` for a missing key or a value of the wrong type.
        public init(_ fields: [String: Variant]) throws(KeyError) {
            id = try fields.required(Keys.id)
            summary = try fields.required(Keys.summary)
            activityType = try fields.required(Keys.activityType)
            title = try fields.value(Keys.title)
            webpageURL = try fields.value(Keys.webpageURL)
            deviceID = try fields.value(Keys.deviceID)
            device = try fields.required(Keys.device)
            received = try fields.required(Keys.received)
            expires = try fields.required(Keys.expires)
        }

        public var variants: [String: Variant] {
            var fields: [String: Variant] = [:]
            fields.insert(Keys.id, id)
            fields.insert(Keys.summary, summary)
            fields.insert(Keys.activityType, activityType)
            fields.insert(Keys.title, title)
            fields.insert(Keys.webpageURL, webpageURL)
            fields.insert(Keys.deviceID, deviceID)
            fields.insert(Keys.device, device)
            fields.insert(Keys.received, received)
            fields.insert(Keys.expires, expires)
            return fields
        }
    }
}
