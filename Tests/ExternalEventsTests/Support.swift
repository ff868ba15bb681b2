import ExternalEvents

/// Content types by file extension, with a parent table: enough shared-mime-info for pure rule tests
/// (the Desktop tests check the real database).
struct ExtensionContentTypes: ContentTypeResolving {
    var byExtension = ["md": "text/markdown", "txt": "text/plain", "png": "image/png", "html": "text/html"]
    var parent = ["text/markdown": "text/plain", "text/html": "text/plain"]

    func contentType(ofFileURL url: String) -> String? {
        guard url.hasPrefix("file://"), let dot = url.lastIndex(of: ".") else { return nil }
        return byExtension[String(url[url.index(after: dot)...])]
    }

    func contentType(_ type: String, conformsTo supertype: String) -> Bool {
        var current: String? = type
        while let t = current {
            if t == supertype { return true }
            current = parent[t]
        }
        return false
    }
}

func router(
    _ declarations: [SceneDeclaration], _ open: [OpenScene] = [], multiple: Bool = true
) throws -> SceneRouter {
    try SceneRouter(
        declarations: declarations, openScenes: open, supportsMultipleScenes: multiple,
        contentTypes: ExtensionContentTypes())
}

func scene(_ id: String, of declaration: String, preferring: ConditionSet = .none, allowing: ConditionSet = .none) -> OpenScene {
    OpenScene(id: id, declaration: declaration, modifiers: [EventPreference(preferring: preferring, allowing: allowing)])
}

/// SplitMix64: a small seeded generator so that a failing property names a reproducible seed.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
