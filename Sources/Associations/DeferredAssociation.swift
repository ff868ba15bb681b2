import Synchronization

/// An association file kept as its bytes until a link first needs it, then parsed and compiled once.
///
/// Compiling costs about 0.3 ms for a file of 50 components (JSON decoding is most of it), so a
/// daemon that compiled every installed file at start would wait 0.3 s per thousand files; it reads
/// them instead, routes at once, and compiles in the background (`compile()`), while a link that
/// arrives first compiles only its own domain's file.
public final class DeferredAssociation: Sendable {
    public let bytes: [UInt8]
    /// Where the bytes came from, for messages.
    public let source: String
    private let compiled: Mutex<Result<AssociationFile, AssociationFileError>?>

    public init(bytes: [UInt8], source: String) {
        self.bytes = bytes
        self.source = source
        compiled = Mutex(nil)
    }

    /// An association already compiled.
    public init(_ file: AssociationFile, source: String = "") {
        bytes = []
        self.source = source
        compiled = Mutex(.success(file))
    }

    /// The compiled file, or why the bytes are not one; compiled on the first call only.
    public func compile() -> Result<AssociationFile, AssociationFileError> {
        compiled.withLock { state in
            if let state { return state }
            let result = Result { () throws(AssociationFileError) in try AssociationFile(json: bytes) }
            state = result
            return result
        }
    }

    /// The compiled file, nil when the bytes are malformed (such an association names no app).
    public var file: AssociationFile? { try? compile().get() }
}
