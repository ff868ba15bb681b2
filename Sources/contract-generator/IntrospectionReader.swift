import FoundationEssentials
import FoundationXML

// D-Bus introspection files as the XML parser gives them, before any meaning is read into them.
// libxml2 (through FoundationXML's XMLParser) does the parsing; this only walks its events.

struct Annotation {
    var name: String
    var value: String
}

struct ArgumentElement {
    var name: String?
    var type: String
    var direction: String?
    var annotations: [Annotation] = []
}

struct MemberElement {
    enum Kind: String { case method, signal, property }

    var kind: Kind
    var name: String
    /// The comment right before the element (what the XML says the member does).
    var comment: String?
    var arguments: [ArgumentElement] = []
    var annotations: [Annotation] = []
    /// A property's type and access.
    var type: String?
    var access: String?
}

struct InterfaceElement {
    var name: String
    var annotations: [Annotation] = []
    var members: [MemberElement] = []
}

/// One file of `dbus/`: the root `<node>`'s path (when it names one), the comment before it, its interfaces.
struct IntrospectionFile {
    var fileName: String
    var nodePath: String?
    var headerComment: String?
    var interfaces: [InterfaceElement] = []

    fileprivate init(fileName: String, nodePath: String?, headerComment: String?) {
        (self.fileName, self.nodePath, self.headerComment) = (fileName, nodePath, headerComment)
    }

    /// Reads `data`, the text of `fileName`.
    /// - Throws: `GeneratorError` for XML the parser refuses, or an element, attribute or text that
    ///   introspection files do not have.
    init(fileName: String, data: Data) throws(GeneratorError) {
        self.fileName = fileName
        let reader = Reader(fileName: fileName)
        let parser = XMLParser(data: data)
        parser.delegate = reader
        let parsed = parser.parse()
        if let error = reader.error { throw error }
        guard parsed, let root = reader.file else {
            throw GeneratorError(fileName, "not readable XML: \(parser.parserError.map { "\($0)" } ?? "no <node>")")
        }
        self = root
    }
}

/// Builds an `IntrospectionFile` from the parser's events; stops at the first element out of place.
private final class Reader: XMLParserDelegate {
    let fileName: String
    var file: IntrospectionFile?
    var error: GeneratorError?
    private var stack: [String] = []
    private var pendingComment: String?

    init(fileName: String) { self.fileName = fileName }

    private func fail(_ parser: XMLParser, _ message: String) {
        if error == nil { error = GeneratorError(fileName, message) }
        parser.abortParsing()
    }

    func parser(_ parser: XMLParser, foundComment comment: String) {
        pendingComment = comment
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        if string.contains(where: { !$0.isWhitespace }) { fail(parser, "text outside attributes: \"\(string)\"") }
    }

    func parser(
        _ parser: XMLParser, didStartElement element: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        let comment = pendingComment
        pendingComment = nil
        let parent = stack.last
        stack.append(element)
        switch (element, parent) {
        case ("node", nil):
            file = IntrospectionFile(fileName: fileName, nodePath: attributes["name"], headerComment: comment)
        case ("interface", "node"):
            guard let name = attributes["name"] else { return fail(parser, "an <interface> without a name") }
            file?.interfaces.append(InterfaceElement(name: name))
        case ("method", "interface"), ("signal", "interface"), ("property", "interface"):
            guard let name = attributes["name"] else { return fail(parser, "a <\(element)> without a name") }
            var member = MemberElement(kind: MemberElement.Kind(rawValue: element)!, name: name, comment: comment)
            member.type = attributes["type"]
            member.access = attributes["access"]
            updateInterface { $0.members.append(member) }
        case ("arg", "method"), ("arg", "signal"):
            guard let type = attributes["type"] else { return fail(parser, "an <arg> without a type") }
            let argument = ArgumentElement(name: attributes["name"], type: type, direction: attributes["direction"])
            updateMember { $0.arguments.append(argument) }
        case ("annotation", _):
            guard let name = attributes["name"], let value = attributes["value"] else {
                return fail(parser, "an <annotation> without a name or a value")
            }
            let annotation = Annotation(name: name, value: value)
            switch parent {
            case "interface": updateInterface { $0.annotations.append(annotation) }
            case "method", "signal", "property": updateMember { $0.annotations.append(annotation) }
            case "arg": updateMember { $0.arguments[$0.arguments.count - 1].annotations.append(annotation) }
            default: fail(parser, "an <annotation> inside <\(parent ?? "nothing")>")
            }
        default:
            fail(parser, "<\(element)> inside <\(parent ?? "nothing")>: not an element this generator reads")
        }
    }

    func parser(_ parser: XMLParser, didEndElement element: String, namespaceURI: String?, qualifiedName: String?) {
        stack.removeLast()
        pendingComment = nil
    }

    private func updateInterface(_ change: (inout InterfaceElement) -> Void) {
        guard file != nil, !file!.interfaces.isEmpty else { return }
        change(&file!.interfaces[file!.interfaces.count - 1])
    }

    private func updateMember(_ change: (inout MemberElement) -> Void) {
        updateInterface { interface in
            guard !interface.members.isEmpty else { return }
            change(&interface.members[interface.members.count - 1])
        }
    }
}
