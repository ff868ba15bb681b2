import Desktop

/// Firefox's `profiles.ini`: `[ProfileN]` sections (`Name=`, `Path=`, `IsRelative=`, `Default=`) and
/// `[InstallHASH]` sections, whose `Default=` is the path the installation opens when told no profile.
/// Read as a plain key file (`KeyFileText`): Firefox writes no escapes, so values are taken as written.
enum FirefoxProfilesINI {
    /// The profiles in `bytes`, in file order; a section without `Name=` or `Path=` is left out.
    /// The default is the one the first `[Install…]` section names, else the one marked `Default=1`.
    /// - Throws: `malformed` naming `file` and the line when it is not key-file text.
    static func profiles(_ bytes: [UInt8], file: String) throws(BrowserProfileError) -> [BrowserProfile] {
        let text: KeyFileText
        do { text = try KeyFileText(bytes: bytes, file: file) } catch { throw .malformed(file: file, reason: error.description) }
        var sections: [(group: String, values: [String: String])] = []
        for line in text.lines {
            switch line.kind {
            case .group(let name): sections.append((name, [:]))
            case .entry(let key, let value): if !sections.isEmpty { sections[sections.count - 1].values[key] = value }
            case .blank, .comment: break
            }
        }
        let installDefault = sections.first { $0.group.hasPrefix("Install") }?.values["Default"]
        let listed = sections.filter { $0.group.hasPrefix("Profile") }.compactMap { section -> (String, String, Bool)? in
            guard let name = section.values["Name"], !name.isEmpty, let path = section.values["Path"], !path.isEmpty else { return nil }
            return (name, path, section.values["Default"] == "1")
        }
        let defaultPath = installDefault.flatMap { path in listed.contains { $0.1 == path } ? path : nil }
            ?? listed.first { $0.2 }?.1
        return listed.map { name, path, _ in BrowserProfile(name: name, directory: path, isDefault: path == defaultPath) }
    }
}
