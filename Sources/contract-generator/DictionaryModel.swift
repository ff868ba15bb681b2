// The a{sv} dictionaries as the XML describes them, down to each key's codec: whether it is
// required, what its absence means, whether it is left out at that default, what its elements are.
// The generated structs and their codecs come from this alone (docs/dbus.md).

/// How one key is read and written: the words after its type in `io.waypost.Key`.
struct KeyCodec: Equatable {
    enum Presence: Equatable {
        /// Absent is nil (no word).
        case optional
        /// `required`: a dictionary without it is refused.
        case required
        /// `default=false`, `default=true`, `default=empty`: absent means that value.
        case defaulted(String)
    }

    var presence = Presence.optional
    /// `omit-default`: written only when it is not its default.
    var omitDefault = false
    /// `lenient`: a value of another type is read as absent, not refused.
    var lenient = false
    /// `error-name`: the string is an `io.waypost.Error.<Name>`.
    var errorName = false

    /// The words after the key's type.
    /// - Throws: a message naming what does not fit the key's type or the other words.
    init(_ words: [Substring], signature: String) throws(SignatureError) {
        for word in words {
            switch word {
            case "required" where presence == .optional: presence = .required
            case "omit-default" where !omitDefault: omitDefault = true
            case "lenient" where !lenient: lenient = true
            case "error-name" where !errorName: errorName = true
            case let word where word.hasPrefix("default=") && presence == .optional:
                let value = String(word.dropFirst("default=".count))
                switch (value, signature.first) {
                case ("false", "b"), ("true", "b"), ("empty", "s"), ("empty", "a"): presence = .defaulted(value)
                default: throw SignatureError("default=\(value) does not fit \(signature) (false or true of b; empty of s and arrays)")
                }
            default: throw SignatureError("\"\(word)\" is no codec word here (required, default=…, omit-default, lenient, error-name, each once)")
            }
        }
        if omitDefault, case .defaulted = presence {} else if omitDefault { throw SignatureError("omit-default needs default=…") }
        if lenient, presence != .optional { throw SignatureError("lenient is for a key that may be absent, with no default") }
        if errorName, signature != "s" || presence != .optional { throw SignatureError("error-name is for a string that may be absent") }
    }

    init() {}
}

/// A D-Bus structure the contract names (`io.waypost.Struct`): its fields' names, and their types
/// once a place that carries it states them.
struct StructType {
    var name: String
    var fields: [String]
    /// Each field's D-Bus type.
    var signatures: [String]?
    /// The dictionary it is declared in (`NotificationContent.Button`), or nil (`Contract.Modifier`).
    var owner: String?
    /// The Swift name of the interface whose generated file holds it.
    var interface: String
    /// The file of `dbus/` that declares it, for messages.
    var fileName: String
}

/// The annotations of one argument that describe its dictionary beyond its keys.
struct DictionaryExtras {
    var structs: [(name: String, fields: [String])] = []
    var elements: [String: String] = [:]
    var propertyNames: [String: String] = [:]
    var rules: String?
    var handWritten: String?
}

extension ContractModel {
    /// Reads one of the codec's annotations on an argument into `extras`; false for another annotation.
    static func readExtra(_ annotation: Annotation, into extras: inout DictionaryExtras, _ fail: (String) -> GeneratorError) throws(GeneratorError) -> Bool {
        /// "key: rest".
        func pair(_ format: String) throws(GeneratorError) -> (String, String) {
            let parts = annotation.value.split(separator: ":", maxSplits: 1)
            guard parts.count == 2 else { throw fail("\(annotation.name) is \"\(format)\", not \"\(annotation.value)\"") }
            return (String(parts[0].filter { $0 != " " }), String(parts[1].drop { $0 == " " }))
        }
        switch annotation.name {
        case Annotations.structure:
            let (name, rest) = try pair("Name: field field …")
            let fields = rest.split(separator: " ").map(String.init)
            guard SwiftNames.isIdentifier(name), name.first!.isUppercase, !fields.isEmpty,
                  fields.allSatisfy({ SwiftNames.isIdentifier(SwiftNames.member(kebab: $0)) }), Set(fields).count == fields.count
            else { throw fail("\(annotation.name) is \"Name: field field …\", distinct fields, not \"\(annotation.value)\"") }
            extras.structs.append((name, fields))
        case Annotations.element:
            let (key, type) = try pair("key: Type")
            guard SwiftNames.isIdentifier(type), extras.elements[key] == nil else { throw fail("\(annotation.name) \"\(annotation.value)\": once a key, a type's name") }
            extras.elements[key] = type
        case Annotations.swiftProperty:
            let (key, name) = try pair("key: swiftName")
            guard SwiftNames.isIdentifier(name), extras.propertyNames[key] == nil else { throw fail("\(annotation.name) \"\(annotation.value)\": once a key, a Swift name") }
            extras.propertyNames[key] = name
        case Annotations.rules:
            guard extras.rules == nil, !annotation.value.isEmpty else { throw fail("\(annotation.name) is once, saying the rules") }
            extras.rules = annotation.value
        case Annotations.swiftHandWritten:
            guard extras.handWritten == nil, !annotation.value.isEmpty else { throw fail("\(annotation.name) is once, saying why") }
            extras.handWritten = annotation.value
        default: return false
        }
        return true
    }

    /// Adds an argument's codec annotations to its dictionary (or, on an argument of no dictionary,
    /// its structures to the contract's).
    mutating func mergeExtras(
        _ extras: DictionaryExtras, dictionary name: String?, keys: [DictionaryKey], argumentSignature: String, interface: String,
        fileName: String, _ fail: (String) -> GeneratorError
    ) throws(GeneratorError) {
        for (structName, fields) in extras.structs {
            guard !structs.contains(where: { $0.name == structName }) else { throw fail("io.waypost.Struct \(structName) twice") }
            var type = StructType(name: structName, fields: fields, owner: name, interface: interface, fileName: fileName)
            if name == nil || structName == name {
                // It is the argument's own structure (or, of a dictionary's argument, the one it travels in).
                let signature = argumentSignature.hasPrefix("a(") ? String(argumentSignature.dropFirst()) : argumentSignature
                guard signature.hasPrefix("("), let fieldSignatures = try? SignatureTypes.fields(of: signature) else {
                    throw fail("io.waypost.Struct \(structName) names the structure of an argument of type \(argumentSignature), which is none")
                }
                guard fieldSignatures.count == fields.count else { throw fail("io.waypost.Struct \(structName) names \(fields.count) fields of \(signature)") }
                type.signatures = fieldSignatures
                if structName == name {
                    guard fieldSignatures.filter({ $0 == "a{sv}" }).count == 1 else {
                        throw fail("the structure dictionary \(structName) travels in holds it once (one a{sv} field)")
                    }
                    type.owner = nil
                }
            }
            structs.append(type)
        }
        guard let name else {
            guard extras.elements.isEmpty, extras.propertyNames.isEmpty, extras.rules == nil, extras.handWritten == nil else {
                throw fail("io.waypost.Element, Rules and Swift.Property/HandWritten describe a dictionary: this argument holds none")
            }
            return
        }
        let index = dictionaries.firstIndex { $0.name == name }!
        for key in Array(extras.elements.keys) + Array(extras.propertyNames.keys) where !keys.contains(where: { $0.name == key }) {
            throw fail("\(key) is no key of this argument")
        }
        func setOnce<Value: Equatable>(_ value: Value?, _ path: WritableKeyPath<Dictionary, Value?>, _ what: String) throws(GeneratorError) {
            guard let value else { return }
            if let known = dictionaries[index][keyPath: path], known != value { throw fail("\(name)'s \(what) differs from another argument's") }
            dictionaries[index][keyPath: path] = value
        }
        try setOnce(extras.rules, \.rules, "io.waypost.Rules")
        try setOnce(extras.handWritten, \.handWritten, "io.waypost.Swift.HandWritten")
        for (key, type) in extras.elements {
            if let known = dictionaries[index].elements[key], known != type { throw fail("\(name)'s elements of \(key) differ from another argument's") }
            dictionaries[index].elements[key] = type
        }
        for (key, property) in extras.propertyNames {
            if let known = dictionaries[index].propertyNames[key], known != property { throw fail("\(name)'s Swift name of \(key) differs from another argument's") }
            dictionaries[index].propertyNames[key] = property
        }
        if let own = extras.structs.first(where: { $0.name == name }) {
            guard dictionaries[index].structure == nil else { throw fail("\(name) travels in two structures") }
            dictionaries[index].structure = own.name
        }
    }

    /// Once every file is read: each element type names a structure or dictionary of a fitting type,
    /// and every structure's fields have their types.
    /// - Throws: `GeneratorError` naming the dictionary and key that does not fit.
    mutating func resolveElements() throws(GeneratorError) {
        for dictionary in dictionaries {
            func fail(_ message: String) -> GeneratorError { GeneratorError(dictionary.fileName, "\(dictionary.holders[0]): \(dictionary.name): \(message)") }
            if dictionary.handWritten != nil, !dictionary.elements.isEmpty || dictionary.rules != nil || dictionary.keys.contains(where: { $0.codec != KeyCodec() }) {
                throw fail("a dictionary written by hand (io.waypost.Swift.HandWritten) has no codec words, elements or rules")
            }
            for key in dictionary.keys {
                guard let typeName = dictionary.elements[key.name] else { continue }
                guard key.signature.hasPrefix("a"), !key.signature.hasPrefix("a{") else { throw fail("\(key.name): io.waypost.Element is for an array") }
                let element = String(key.signature.dropFirst())
                if let target = dictionaries.first(where: { $0.name == typeName }) {
                    let expected = target.structure.flatMap { name in structs.first { $0.name == name } }
                        .map { "(" + $0.signatures!.joined() + ")" } ?? "a{sv}"
                    guard element == expected, target.handWritten == nil else {
                        throw fail("\(key.name)'s elements (\(element)) are not \(typeName)'s, \(expected), generated")
                    }
                    continue
                }
                guard let index = structs.firstIndex(where: { $0.name == typeName && ($0.owner == nil || $0.owner == dictionary.name) }) else {
                    throw fail("\(key.name): \(typeName) is no dictionary or io.waypost.Struct here")
                }
                guard element.hasPrefix("("), let fields = try? SignatureTypes.fields(of: element), fields.count == structs[index].fields.count else {
                    throw fail("\(key.name): \(element) is no structure of \(structs[index].fields.count) fields (\(typeName))")
                }
                if let known = structs[index].signatures, known != fields { throw fail("\(key.name): \(typeName) is \(known.joined()) elsewhere") }
                structs[index].signatures = fields
            }
            for key in dictionary.keys where key.codec.lenient || key.codec.errorName {
                let enumerated = dictionary.valueSets.contains { $0.key == key.name }
                guard !(enumerated || dictionary.elements[key.name] != nil) || !key.codec.lenient, !(enumerated && key.codec.errorName) else {
                    throw fail("\(key.name): lenient and error-name are for plain values")
                }
            }
        }
        if let unused = structs.first(where: { $0.signatures == nil }) {
            throw GeneratorError(unused.fileName, "io.waypost.Struct \(unused.name) is no key's element")
        }
    }
}
