public import FoundationEssentials

/// The verification records of fetched domains, one JSON file each under a directory
/// (`$XDG_CACHE_HOME/waypost/associations/<domain>.json`), the last good file inside.
///
/// Reading it never touches the network: the daemon decides links from what is here, and the
/// `Verifier` alone writes it. Each record is written whole to a temporary file and renamed, so a
/// reader sees the old record or the new one.
public struct AssociationCache: Sendable {
    public let directory: String

    public init(directory: String) {
        self.directory = directory
    }

    /// The cache of `$XDG_CACHE_HOME`.
    public init(_ directories: AssociationDirectories) {
        self.init(directory: directories.cache)
    }

    /// The record's file.
    public func path(for domain: AssociatedDomain) -> String { "\(directory)/\(domain.name).json" }

    /// What is known of `domain`: a `notYet` record when it was never stored.
    /// - Throws: `AssociationCacheError` when its file cannot be read or decoded.
    public func record(for domain: AssociatedDomain) throws(AssociationCacheError) -> VerificationRecord {
        let path = path(for: domain)
        let bytes: [UInt8]
        do { bytes = try FileSystem.read(path, limit: Self.recordSizeLimit).bytes } catch {
            if error.isMissing { return VerificationRecord(notYet: domain) }
            throw .unreadable(path: path, reason: error.description)
        }
        let record = try Self.decode(bytes, path: path)
        guard record.domain == domain else { throw .corrupt(path: path, reason: "it is the record of \(record.domain)") }
        return record
    }

    /// True when `domain` is due for a check at `now`: never checked, its next check passed, or
    /// its record unusable (a check rewrites it).
    public func needsVerification(_ domain: AssociatedDomain, at now: Date) -> Bool {
        (try? record(for: domain).needsVerification(at: now)) ?? true
    }

    /// Every stored record, by domain; files that cannot be read are reported beside them.
    public func records() -> (records: [VerificationRecord], problems: [AssociationCacheError]) {
        var set = AssociationFileSet(directories: [directory])
        let changes = set.refresh()
        var records: [VerificationRecord] = []
        var problems = changes.problems.map { AssociationCacheError.unreadable(path: $0.path, reason: $0.reason) }
        for file in set.files.values.sorted(by: { $0.name < $1.name }) {
            do { records.append(try Self.decode(file.bytes, path: file.path)) } catch { problems.append(error) }
        }
        return (records, problems)
    }

    /// Writes `record` in place of the domain's previous one, making the directory if needed.
    /// - Throws: `AssociationCacheError.unwritable` with the path and the system's reason.
    public func store(_ record: VerificationRecord) throws(AssociationCacheError) {
        let path = path(for: record.domain)
        let bytes: [UInt8]
        do { bytes = [UInt8](try Self.encoder.encode(record)) } catch {
            preconditionFailure("a verification record failed to encode: \(error)")  // only our types: a bug
        }
        do {
            try FileSystem.makeDirectories(directory)
            try FileSystem.writeAtomically(bytes, to: path)
        } catch {
            throw .unwritable(path: path, reason: error.description)
        }
    }

    /// Forgets `domain` (its app was uninstalled, say).
    public func remove(_ domain: AssociatedDomain) throws(AssociationCacheError) {
        do { try FileSystem.remove(path(for: domain)) } catch {
            throw .unwritable(path: path(for: domain), reason: error.description)
        }
    }

    /// A record holds at most a 128 KiB file as base64, and a few dates.
    static let recordSizeLimit = 512 << 10

    private static func decode(_ bytes: [UInt8], path: String) throws(AssociationCacheError) -> VerificationRecord {
        do { return try decoder.decode(VerificationRecord.self, from: Data(bytes)) } catch {
            throw .corrupt(path: path, reason: "\(error)")
        }
    }

    private static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return encoder
    }

    private static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}

/// A cache file that could not be read, decoded or written, with its path and the reason.
public enum AssociationCacheError: Error, Sendable, Equatable, CustomStringConvertible {
    case unreadable(path: String, reason: String)
    case corrupt(path: String, reason: String)
    case unwritable(path: String, reason: String)

    public var description: String {
        switch self {
        case .unreadable(let path, let reason): "cannot read the cached record \(path): \(reason)"
        case .corrupt(let path, let reason): "the cached record \(path) is not a record: \(reason)"
        case .unwritable(let path, let reason): "cannot write the cached record \(path): \(reason)"
        }
    }
}
