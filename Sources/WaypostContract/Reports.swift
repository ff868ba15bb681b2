import DBus

// What the dispatcher reports: RoutingOutcome (where an event went: Open, ContinueActivity, Explain,
// Routed), ProcessStatus and SceneStatus (Status) are generated from dbus/ (Generated/). Here is the
// one rule of an outcome its keys cannot state.

extension Contract.RoutingOutcome {
    /// A check on top of the generated codec, not a codec: `Explain`'s steps are one level deep, so a
    /// step holding steps of its own is refused (the codec reads each step as an outcome).
    static func checkRules(reading outcome: inout [String: Variant]) throws(Contract.KeyError) {
        guard case .array(_, let steps)? = outcome[Keys.steps.name] else { return }
        for case .dictionary(_, _, let step) in steps where step[.string(Keys.steps.name)] != nil {
            throw .unexpectedValue(key: Keys.steps.name, value: "steps within a step", allowed: ["steps without steps of their own"])
        }
    }

    /// Nothing to drop: the daemon builds one level of steps.
    func applyRules(writing properties: inout PropertyList) {}
}
