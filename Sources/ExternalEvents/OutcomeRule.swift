/// The rule an event's destination was chosen by: the router's own rules inside a participating app,
/// or one of the two ways outside them. Named once here, beside `Decision.Rule`, so that the plan
/// (`Planning.Rule`) and the contract's outcome (`Contract.RoutingOutcome.Rule`) are one type and
/// cannot drift apart.
public enum OutcomeRule: String, Sendable, Hashable, CaseIterable {
    case singleScene = "single-scene"
    case preferring, allowing, matching
    case documentType = "document-type"
    case `default`
    /// Nothing routed (yet): a launch before the app declared its scenes, or no scene takes it.
    case none
    /// A non-participating handler: the scheme's or content type's previous one.
    case fallback
    /// The user's browser: a web link no app owns, or whose app could not take it.
    case browser

    /// The router's rule by the same name (a switch, so a new rule of the router must be named here).
    public init(_ rule: Decision.Rule) {
        self = switch rule {
        case .singleScene: .singleScene
        case .preferring: .preferring
        case .allowing: .allowing
        case .matching: .matching
        case .documentType: .documentType
        case .default: .default
        case .none: .none
        }
    }
}
