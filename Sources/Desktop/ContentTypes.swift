public import ExternalEvents

/// Content types from the shared-mime-info database, through GIO: what a document group compares.
///
/// A file's type is guessed from its name, as file managers do for speed; its bytes are never
/// read, so a file that does not exist yet still has a type. An uncertain guess counts as no type.
public struct ContentTypes: ContentTypeResolving {
    /// - Throws: `GIOLoadError` when GIO cannot be opened.
    public init() throws(GIOLoadError) { try GIO.load() }

    /// For the catalog, whose own value proves GIO loaded.
    init(_ catalog: ApplicationCatalog) {}

    /// The MIME type of the file a `file://` URL names (percent-decoded), or nil for other URLs and
    /// names GIO cannot place.
    public func contentType(ofFileURL url: String) -> String? {
        guard let path = GIOContentType.path(ofFileURI: url) else { return nil }
        return GIOContentType.guess(fileName: path)
    }

    /// Whether `type` is `supertype` or one of its subtypes; MIME aliases on either side are resolved.
    public func contentType(_ type: String, conformsTo supertype: String) -> Bool {
        let type = GIOContentType.fromMIMEType(type) ?? type
        let supertype = GIOContentType.fromMIMEType(supertype) ?? supertype
        return GIOContentType.isA(type, supertype)
    }
}
