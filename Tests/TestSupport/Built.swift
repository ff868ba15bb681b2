// Where every fixture finds the programs the package built and the files it ships: one answer.
public import Foundation

/// The programs under test and the package's own files.
public enum Built {
    /// The package's root (this file is Tests/TestSupport/Built.swift).
    public static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    /// The build directory: the test bundle runs from it, beside the products it tests.
    public static let directory = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
    /// The `waypost` under test: `$WAYPOST` when set (`make test-release` names the release binary),
    /// resolved as `waypost install` writes it (`.build/release` is a link); else the one built here.
    public static let waypost: URL = {
        if let path = ProcessInfo.processInfo.environment["WAYPOST"] {
            return URL(fileURLWithPath: path).resolvingSymlinksInPath()
        }
        return directory.appendingPathComponent("waypost")
    }()
    /// The participating app in Python the integration tests drive, written from the XML alone.
    public static let sampleApp = packageRoot.appendingPathComponent("Tests/Apps/sample_app.py")
    /// Debian's python3, the one python3-dbus and python3-gi are installed for, not a PATH shim.
    public static let python = "/usr/bin/python3"
}
