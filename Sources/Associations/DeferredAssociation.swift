import Synchronization

/// An association file's bytes and, once compiled, what they compile to: the loader keeps one per
/// source, so that bytes that did not change are not compiled again at the next rebuild.
///
/// Compiled before any table that uses it is published (`LinkOwnership(deferredAssociations:)`),
/// never by a decision: a decision never waits for a compile, nor for this lock held by one.
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

    /// Whether `compile()` has run: a table never holds an association that has not.
    public var isCompiled: Bool { compiled.withLock { $0 != nil } }
}
