/// The extension the browser started the host for, from the host's arguments: Chrome and Chromium
/// pass the caller's origin (`chrome-extension://ID/`); Firefox passes the host manifest's path and
/// the add-on's id. Only Waypost's own extension ids are let in.
public enum BrowserCaller: Sendable, Equatable {
    case chromium(extensionID: String)
    case firefox(addonID: String)

    /// Waypost's extension in Chromium and Chrome: fixed by the public `key` in its manifest.
    public static let chromiumExtensionID = "dlcbkgibophkfedgdgmpjniaejihejlf"
    /// Waypost's add-on in Firefox (`browser_specific_settings.gecko.id`).
    public static let firefoxAddonID = "browser-extension@waypost.io"
    /// The native-messaging host's name, in both browsers (`[a-z0-9_.]`).
    public static let hostName = "io.waypost.browser_host"

    /// - Parameter arguments: the host's arguments after the subcommand.
    /// - Throws: `BrowserCallerError` when no allowed extension is named.
    public init(arguments: [String]) throws(BrowserCallerError) {
        if let origin = arguments.first(where: { $0.hasPrefix("chrome-extension://") }) {
            let id = origin.dropFirst("chrome-extension://".count).split(separator: "/", omittingEmptySubsequences: false).first.map(String.init) ?? ""
            guard id == Self.chromiumExtensionID else { throw .notAllowed(origin) }
            self = .chromium(extensionID: id)
        } else if arguments.count >= 2, arguments[0].hasPrefix("/"), arguments[0].hasSuffix(".json") {
            guard arguments[1] == Self.firefoxAddonID else { throw .notAllowed(arguments[1]) }
            self = .firefox(addonID: arguments[1])
        } else {
            throw .noCaller(arguments)
        }
    }
}

/// The host was started by something other than Waypost's extension.
public enum BrowserCallerError: Error, Sendable, Equatable, CustomStringConvertible {
    case notAllowed(String)
    case noCaller([String])

    public var description: String {
        switch self {
        case .notAllowed(let caller): "\(caller) is not Waypost's browser extension; only \(BrowserCaller.chromiumExtensionID) (Chromium, Chrome) and \(BrowserCaller.firefoxAddonID) (Firefox) may use this host"
        case .noCaller(let arguments): "no browser extension named in the arguments \(arguments); a browser starts this host with the extension's origin (Chromium, Chrome) or its manifest and add-on id (Firefox)"
        }
    }
}
