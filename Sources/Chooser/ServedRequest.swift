internal import Planning

/// One request to `waypost choose --serve`, read from one line of its stdin:
/// `TOKEN<TAB>SUBJECT<TAB>SCOPE<TAB>OPENER<TAB>DEST[<TAB>DEST…]`, fields as `waypost choose`'s
/// options take them, TOKEN and OPENER possibly empty.
public struct ServedRequest: Sendable, Hashable {
    /// The opener's activation token (Wayland) or startup id (X11) to present the window with;
    /// empty: none.
    public var token: String
    public var request: ChooserRequest

    public init(token: String, request: ChooserRequest) {
        (self.token, self.request) = (token, request)
    }

    /// Reads one line, without its newline.
    /// - Throws: `ServedRequest.Unreadable`, whose reason the `error` line carries.
    public init(line: some Collection<UInt8>) throws(Unreadable) {
        guard let text = String(validating: line, as: UTF8.self) else { throw Unreadable("the line is not UTF-8") }
        let fields = text.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        guard fields.count >= 5 else {
            throw Unreadable("\(fields.count) field\(fields.count == 1 ? "" : "s"), not TOKEN, SUBJECT, SCOPE, OPENER and at least one DEST")
        }
        guard let scope = ChoiceScope(fields[2]) else { throw Unreadable("not a scope: \(Self.quoted(fields[2]))") }
        let opener = fields[3].isEmpty ? nil : fields[3]
        if let opener, NamedDestination(opener)?.window != .usual {
            throw Unreadable("OPENER takes a desktop-file id, not \(Self.quoted(opener))")
        }
        var candidates: [NamedDestination] = []
        for field in fields[4...] {
            guard let destination = NamedDestination(field) else { throw Unreadable("not a destination: \(Self.quoted(field))") }
            candidates.append(destination)
        }
        self.init(token: fields[0], request: ChooserRequest(subject: fields[1], scope: scope, opener: opener, candidates: candidates))
    }

    /// Outside text in a reason: on one line, and short.
    private static func quoted(_ text: String) -> String {
        "\"\(ShownText.plain(text, limit: 80))\""
    }

    /// Why a line is not a request.
    public struct Unreadable: Error, Sendable, Hashable, CustomStringConvertible {
        public var reason: String
        public init(_ reason: String) { self.reason = reason }
        public var description: String { reason }
    }
}

/// What `waypost choose --serve` writes for a line it could not read, without the newline:
/// `error<TAB>REASON`, the reason on one line.
public func servedErrorLine(_ reason: String) -> String {
    "error\t" + ShownText.plain(reason)
}
