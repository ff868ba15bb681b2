/// Which installed apps can continue a user activity type, and which of them the user chose.
///
/// The choice is a `[Default Applications]` line in mimeapps.list, as for a file type or a URL
/// scheme, under the content type `x-waypost-activity/<type>`: the file the desktop's own settings
/// and `gio mime` edit, read by GIO with the user's file first, then the desktop's and the
/// system's, and watched by GIO's monitors like every other default.
public enum ActivityChoice {
    public static let contentTypePrefix = "x-waypost-activity/"

    /// The content type that carries the user's choice for `activityType`; nil for a type that
    /// cannot be a MIME subtype (bytes beyond letters, digits and `.+-_`, or over 255 bytes).
    public static func contentType(forActivityType activityType: String) -> String? {
        let bytes = Array(activityType.utf8)
        func allowed(_ byte: UInt8) -> Bool {
            (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte)
                || byte == 0x2E || byte == 0x2B || byte == 0x2D || byte == 0x5F
        }
        guard !bytes.isEmpty, bytes.count <= 255, bytes.allSatisfy(allowed) else { return nil }
        return contentTypePrefix + activityType
    }
}

extension ApplicationCatalog {
    /// Every participating entry that lists `activityType` in `X-Waypost-Activity-Types=`, by id.
    /// Which of them continues an activity is the dispatcher's decision, not the order here.
    public func applications(forActivityType activityType: String) -> [ApplicationEntry] {
        participatingEntries().filter { $0.activityTypes.contains(activityType) }
    }

    /// The desktop-file id (without `.desktop`) the user chose for `activityType`, nil when none
    /// or when the type cannot carry a choice (`ActivityChoice.contentType`).
    public func chosenApplicationID(forActivityType activityType: String) -> String? {
        guard let contentType = ActivityChoice.contentType(forActivityType: activityType),
              let id = defaultHandlerID(forType: contentType)
        else { return nil }
        return id.hasSuffix(".desktop") ? String(id.dropLast(8)) : id
    }
}
