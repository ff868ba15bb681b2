public import DBus

// io.waypost.Handoff1 (Generated/Handoff1.swift): activities other devices handed over (through KDE
// Connect), offered to the user.

extension Contract {
    /// One offer as `ListOffers` returns it.
    public struct HandoffOffer: Sendable, Hashable {
        public var id: String
        public var summary: String
        public var activityType: String
        public var title: String?
        public var webpageURL: String?
        /// The KDE Connect device id; nil for an offer no device was seen to share.
        public var deviceID: String?
        public var device: String
        /// Unix seconds.
        public var received: Int64
        /// Unix seconds.
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
