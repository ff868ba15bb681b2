/// The association files of an ordered list of directories, by name, where the first directory
/// holding a name wins; read once, then re-read only what changed when told to.
///
/// A file `shop.example.json` is named `shop.example`: the domain (or, for the user's rules, the
/// claim) it is for. `refresh()` lists each directory and compares each file's stamp (device,
/// inode, size, mtime, ctime) with the one read before; only new or changed files are read.
/// Nothing watches by itself: the daemon calls `refresh()` when a file monitor tells it to.
public struct AssociationFileSet: Sendable {
    /// In precedence order.
    public let directories: [String]
    /// The winning file of each name, as last read.
    public private(set) var files: [String: AssociationSourceFile] = [:]

    /// A local file larger than this is refused (Apple's limit for a served file is 128 KiB).
    public static let sizeLimit = 1 << 20

    static let suffix = ".json"

    public init(directories: [String]) {
        self.directories = directories
    }

    /// The installed files: `$XDG_DATA_HOME` first, then each of `$XDG_DATA_DIRS`.
    public static func installed(_ directories: AssociationDirectories) -> Self { Self(directories: directories.installed) }

    /// The user's rules, from `$XDG_CONFIG_HOME`.
    public static func user(_ directories: AssociationDirectories) -> Self { Self(directories: [directories.user]) }

    /// Lists the directories again, reads what is new or changed, forgets what went; the first call
    /// reads everything. A file that cannot be read is left out (as removed, if it was there) and
    /// reported in `problems`, and the others are kept.
    public mutating func refresh() -> AssociationFileChanges {
        var changes = AssociationFileChanges()
        var current: [String: AssociationSourceFile] = [:]
        for directory in directories {
            let listed: [(name: String, stamp: FileSystem.Stamp)]
            do {
                guard let found = try FileSystem.regularFiles(in: directory, endingWith: Self.suffix) else { continue }
                listed = found
            } catch {
                changes.problems.append(AssociationFileProblem(path: directory, reason: error.description))
                continue
            }
            for (fileName, stamp) in listed {
                let name = String(fileName.dropLast(Self.suffix.count))
                guard current[name] == nil, !name.isEmpty else { continue }  // an earlier directory has it
                let path = directory + "/" + fileName
                if let known = files[name], known.path == path, known.stamp == stamp {
                    current[name] = known
                    continue
                }
                do {
                    let (bytes, readStamp) = try FileSystem.read(path, limit: Self.sizeLimit)
                    let file = AssociationSourceFile(name: name, path: path, bytes: bytes, stamp: readStamp)
                    current[name] = file
                    if files[name] == nil { changes.added.append(file) } else { changes.changed.append(file) }
                } catch {
                    // Vanished since listing it: a later directory's file of that name may show through
                    // at the next refresh. Anything else is a problem to report.
                    if !error.isMissing { changes.problems.append(AssociationFileProblem(path: path, reason: error.description)) }
                }
            }
        }
        changes.removed = files.keys.filter { current[$0] == nil }.sorted()
        changes.added.sort { $0.name < $1.name }
        changes.changed.sort { $0.name < $1.name }
        files = current
        return changes
    }

    /// The first `<name>.json` among `directories`, read now, without listing them; nil when none
    /// has it. For one-off look-ups (`waypost links verify`); the daemon keeps a set.
    /// - Throws: `AssociationFileProblem` when the first file found cannot be read.
    public static func first(named name: String, in directories: [String]) throws(AssociationFileProblem) -> AssociationSourceFile? {
        for directory in directories {
            let path = directory + "/" + name + suffix
            do {
                let (bytes, stamp) = try FileSystem.read(path, limit: sizeLimit)
                return AssociationSourceFile(name: name, path: path, bytes: bytes, stamp: stamp)
            } catch where error.isMissing {
                continue
            } catch {
                throw AssociationFileProblem(path: path, reason: error.description)
            }
        }
        return nil
    }
}

/// One association file as read, with where it came from.
public struct AssociationSourceFile: Sendable, Equatable {
    /// The file's name without `.json`: the domain (or claim) it is for.
    public let name: String
    public let path: String
    public let bytes: [UInt8]
    let stamp: FileSystem.Stamp
}

/// What one `refresh()` found different.
public struct AssociationFileChanges: Sendable, Equatable {
    public internal(set) var added: [AssociationSourceFile] = []
    public internal(set) var changed: [AssociationSourceFile] = []
    /// Names no longer present (or no longer readable).
    public internal(set) var removed: [String] = []
    public internal(set) var problems: [AssociationFileProblem] = []

    /// True when nothing was added, changed or removed.
    public var isEmpty: Bool { added.isEmpty && changed.isEmpty && removed.isEmpty }
}

/// A file or directory that could not be read, and why; the other files are unaffected.
public struct AssociationFileProblem: Error, Sendable, Equatable, CustomStringConvertible {
    public let path: String
    public let reason: String
    public var description: String { reason }
}
