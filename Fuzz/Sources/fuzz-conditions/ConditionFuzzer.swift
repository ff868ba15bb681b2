// Condition folding and matching: the first line is a URL, the others conditions. The router's
// indexed decision must agree with a plain scan of the same sets.
import ExternalEvents

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConditions(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    guard let url = lines.first else { return 0 }
    let conditions = Array(lines.dropFirst())
    let preferring = ConditionSet(conditions.prefix(conditions.count / 2))
    let allowing = ConditionSet(conditions.dropFirst(conditions.count / 2))
    let event = ExternalEvent.url(url)
    guard let router = try? SceneRouter(
        declarations: [.windowGroup("w", matching: ConditionSet(conditions))],
        openScenes: [OpenScene(id: "s", declaration: "w", modifiers: [EventPreference(preferring: preferring, allowing: allowing)])])
    else { return 0 }
    let decision = router.route(event)
    _ = decision.reason
    if preferring.firstMatch(in: event) != nil {
        precondition(decision.rule == .preferring, "\(url) matches \(preferring) but the router says \(decision)")
    } else if allowing.firstMatch(in: event) != nil {
        precondition(decision.rule == .allowing, "\(url) is allowed by \(allowing) but the router says \(decision)")
    } else {
        precondition(decision.rule != .preferring && decision.rule != .allowing, "\(url): \(decision) with no set matching")
    }
    return 0
}
