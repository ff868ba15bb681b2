import FoundationEssentials

/// Chromium's `Local State` (JSON, in the user data directory), as far as profiles go:
/// `profile.info_cache` {directory: {"name": shown name, …}} and `profile.last_used`.
enum ChromiumLocalState {
    private struct File: Decodable {
        var profile: Profiles?
    }

    private struct Profiles: Decodable {
        var info_cache: [String: Info]?
        var last_used: String?
    }

    private struct Info: Decodable {
        var name: String?
    }

    /// The profiles listed in `bytes`: `Default` first, then by directory ("Profile 2" before
    /// "Profile 10"); a profile with no name shows its directory. The default is the last used one,
    /// else `Default` (what Chromium opens when told no profile).
    /// - Throws: `malformed` naming `file` when it is no JSON object of that shape.
    static func profiles(_ bytes: [UInt8], file: String) throws(BrowserProfileError) -> [BrowserProfile] {
        let decoded: File
        do { decoded = try JSONDecoder().decode(File.self, from: Data(bytes)) } catch {
            throw .malformed(file: file, reason: "not Chromium's Local State JSON (\(error))")
        }
        let cache = decoded.profile?.info_cache ?? [:]
        let lastUsed = decoded.profile?.last_used.flatMap { cache[$0] == nil ? nil : $0 } ?? "Default"
        return cache.keys.sorted(by: directoryOrder).map { directory in
            let name = cache[directory]?.name.flatMap { $0.isEmpty ? nil : $0 } ?? directory
            return BrowserProfile(name: name, directory: directory, isDefault: directory == lastUsed)
        }
    }

    /// `Default`, then "Profile N" by number, then the rest by name.
    static func directoryOrder(_ a: String, _ b: String) -> Bool {
        func key(_ directory: String) -> (Int, Int, String) {
            if directory == "Default" { return (0, 0, directory) }
            if directory.hasPrefix("Profile "), let number = Int(directory.dropFirst("Profile ".count)) { return (1, number, directory) }
            return (2, 0, directory)
        }
        return key(a) < key(b)
    }
}
