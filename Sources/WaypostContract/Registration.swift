import DBus

// What an app tells the dispatcher about itself: RegistrationOptions, Declaration and Modifier are
// generated from dbus/ (Generated/Dispatcher1+Dictionaries.swift); here is the one rule of a
// declaration that its keys cannot state.

extension Contract.Declaration {
    /// A check on top of the generated codec, not a codec: `content-types` belongs to document
    /// groups, so a window group's are dropped unread (of whatever type), and never sent.
    static func checkRules(reading variants: inout [String: Variant]) throws(Contract.KeyError) {
        if case .string(Kind.documentGroup.rawValue)? = variants[Keys.kind.name] { return }
        variants[Keys.contentTypes.name] = nil
    }

    /// A document group sends its content types even when it has none; a window group never does.
    func applyRules(writing properties: inout PropertyList) {
        if kind != .documentGroup { properties.remove(Keys.contentTypes) }
    }
}
