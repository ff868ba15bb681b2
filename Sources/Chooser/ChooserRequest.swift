public import Planning

/// What `waypost choose` asks: which of `candidates` should open `subject`, and whether the answer
/// should hold from now on for `scope` (and, with `opener`, only for what that app opens).
public struct ChooserRequest: Sendable, Hashable {
    /// A link, or an activity's title: outside text, shown plain and cut to `ShownText.subjectLimit`.
    public var subject: String
    public var scope: ChoiceScope
    /// The desktop-file id (no `.desktop`) of the app the event came from, when known.
    public var opener: String?
    /// The rows, in order; the first is selected at the start. Never empty.
    public var candidates: [NamedDestination]

    public init(subject: String, scope: ChoiceScope, opener: String? = nil, candidates: [NamedDestination]) {
        (self.subject, self.scope, self.opener, self.candidates) = (subject, scope, opener, candidates)
    }
}

/// The user's answer, written to stdout as one line that the daemon reads (`line`).
public enum ChooserAnswer: Sendable, Hashable {
    /// This destination, now (`once`) or from now on for the scope (`always`, for any opener or
    /// only the opener); `token` lets its window come to the front (empty when GDK gave none).
    case pick(NamedDestination, Lasting, OpenerLimit, token: String)
    /// Escape, Cancel, or the window closed.
    case cancel

    public enum Lasting: String, Sendable, Hashable { case once, always }
    public enum OpenerLimit: String, Sendable, Hashable { case any, opener }

    /// `pick<TAB>DEST<TAB>once|always<TAB>any|opener<TAB>TOKEN` or `cancel`, without the newline.
    /// A token with a tab or line break in it (none should) is left out rather than break the line.
    public var line: String {
        switch self {
        case .cancel:
            return "cancel"
        case .pick(let destination, let lasting, let limit, let token):
            let safeToken = token.unicodeScalars.contains { $0.properties.generalCategory == .control } ? "" : token
            return "pick\t\(destination)\t\(lasting.rawValue)\t\(limit.rawValue)\t\(safeToken)"
        }
    }
}
