// The dictionaries' Swift: for each, a struct of its keys with its codec (`init(_ variants:)`,
// `variants`, `properties`, and `init(_ structure:)`, `structure` for one that travels in a
// structure), its typed keys and value sets; one file per interface of their first holder.

extension SwiftWriter {
    func dictionaryFiles() -> [(name: String, text: String)] {
        let interfaces = model.interfaces.map(\.swiftName).filter { name in
            model.dictionaries.contains { $0.interface == name } || model.structs.contains { $0.owner == nil && $0.interface == name }
        }
        return interfaces.map { interface in
            let dictionaries = model.dictionaries.filter { $0.interface == interface }.sorted { $0.name < $1.name }
            let structs = model.structs.filter { type in
                type.interface == interface && type.owner == nil && !model.dictionaries.contains { $0.name == type.name }
            }
            var out = header(from: "dbus/*.xml")
            let modules = Set(dictionaries.flatMap(\.valueSets).compactMap(\.swiftType).compactMap(Self.module))
            out += "\npublic import DBus\n" + modules.sorted().map { "public import \($0)\n" }.joined()
            for type in structs {
                out += "\nextension Contract {\n" + structDeclaration(type, indent: 4) + "}\n"
            }
            for dictionary in dictionaries {
                out += "\n" + (dictionary.handWritten == nil ? generated(dictionary) : keysOnly(dictionary))
            }
            return ("\(interface)+Dictionaries.swift", out)
        }
    }

    /// A dictionary whose struct is written by hand: its keys and value sets.
    private func keysOnly(_ dictionary: Dictionary) -> String {
        "extension Contract.\(dictionary.name) {\n" + keysAndValues(dictionary) + "}\n"
    }

    private func generated(_ dictionary: Dictionary) -> String {
        let keys = dictionary.keys
        let structure = dictionary.structure.flatMap { name in model.structs.first { $0.name == name } }
        /// The structure's fields other than the dictionary, as (property, Swift type).
        let fields: [(name: String, type: String)] = structure.map { type in
            zip(type.fields, type.signatures!).filter { $0.1 != "a{sv}" }.map { (SwiftNames.member(kebab: $0.0), try! SignatureTypes.swiftType(of: $0.1)) }
        } ?? []
        let throwing = dictionary.rules != nil || keys.contains { !$0.codec.lenient }
        var out = "extension Contract {\n"
        var summary = "`\(dictionary.name)` (`io.waypost.Dictionary`), as \(holders(dictionary)) carry it"
        if let structure { summary += ", within `(\(structure.signatures!.joined()))` (`io.waypost.Struct`: \(structure.fields.joined(separator: ", ")))" }
        out += doc(summary + ". Its codec is the XML's: each key read and written as its `io.waypost.Key` says.", indent: 4)
        if let rules = dictionary.rules {
            let sentence = rules.hasSuffix(".") ? rules : rules + "."
            out += "    ///\n" + doc("Beyond its keys (`io.waypost.Rules`, checked by hand in its `DictionaryRules`): \(sentence)", indent: 4)
        }
        out += "    public struct \(dictionary.name): Sendable, Hashable\(dictionary.rules == nil ? "" : ", DictionaryRules") {\n"
        for type in model.structs where type.owner == dictionary.name {
            out += structDeclaration(type, indent: 8) + "\n"
        }
        for field in fields {
            out += "        /// A field of the structure it travels in.\n"
            out += "        public var \(SwiftNames.escaped(field.name)): \(field.type)\n"
        }
        for key in keys {
            out += "        /// \(describe(key, of: dictionary))\n"
            out += "        public var \(SwiftNames.escaped(dictionary.property(key))): \(propertyType(key, of: dictionary))\n"
        }
        // The memberwise initialiser: an absent key's default is the parameter's.
        let parameters = fields.map { "\($0.name): \($0.type)" } + keys.map { key in
            let property = dictionary.property(key)
            let type = propertyType(key, of: dictionary)
            switch key.codec.presence {
            case .required: return "\(property): \(type)"
            case .optional: return "\(property): \(type) = nil"
            case .defaulted(let value): return "\(property): \(type) = \(literal(value, of: key))"
            }
        }
        out += "\n        public init(" + wrapped(parameters, indent: 8) + ") {\n"
        for name in fields.map(\.name) + keys.map(dictionary.property) {
            out += "            self.\(name) = \(SwiftNames.escaped(name))\n"
        }
        out += "        }\n\n"
        let throwsClause = throwing ? " throws(Contract.KeyError)" : ""
        let errors = "`KeyError`: `missing` without a required key, `wrongType` for a value of another type, `unexpectedValue` for one outside its set"
            + (dictionary.rules == nil ? "" : ", and what its rules refuse")
        if let structure {
            let type = "Structure<" + structure.signatures!.map { try! SignatureTypes.swiftType(of: $0) }.joined(separator: ", ") + ">"
            out += "        /// Read as it travels.\n"
            out += doc("- Throws: \(errors).", indent: 8)
            out += "        public init(_ structure: \(type))\(throwsClause) {\n"
            out += "            let fields = structure.fields\n"
            for (index, (field, signature)) in zip(structure.fields, structure.signatures!).enumerated() {
                if signature == "a{sv}" {
                    out += "            \(dictionary.rules == nil ? "let" : "var") variants = fields.\(index)\n"
                } else {
                    out += "            \(SwiftNames.member(kebab: field)) = fields.\(index)\n"
                }
            }
            out += decoding(dictionary)
            out += "        }\n\n"
            let values = zip(structure.fields, structure.signatures!).map { $1 == "a{sv}" ? "variants" : SwiftNames.member(kebab: $0) }
            out += "        /// As it travels.\n"
            out += "        public var structure: \(type) { Structure((\(values.joined(separator: ", ")))) }\n\n"
        } else {
            out += "        /// Read as it travels" + (throwing ? ".\n" + doc("- Throws: \(errors).", indent: 8) : "; a value of another type is read as absent.\n")
            out += "        public init(_ variants: [String: Variant])\(throwsClause) {\n"
            if dictionary.rules != nil { out += "            var variants = variants\n" }
            out += decoding(dictionary)
            out += "        }\n\n"
        }
        out += "        /// As it travels.\n"
        out += "        public var variants: [String: Variant] { properties.dictionary }\n\n"
        out += "        /// As it travels, its keys in the XML's order, with no dictionary built.\n"
        out += "        public var properties: PropertyList {\n"
        out += "            var properties = PropertyList(capacity: \(keys.count))\n"
        for key in keys { out += encoding(key, of: dictionary) }
        if dictionary.rules != nil { out += "            applyRules(writing: &properties)\n" }
        out += "            return properties\n"
        out += "        }\n"
        out += "    }\n}\n\nextension Contract.\(dictionary.name) {\n" + keysAndValues(dictionary) + "}\n"
        return out
    }

    private func decoding(_ dictionary: Dictionary) -> String {
        var out = dictionary.rules == nil ? "" : "            try Self.checkRules(reading: &variants)\n"
        for key in dictionary.keys {
            let name = "Keys.\(SwiftNames.escaped(key.swiftName))"
            let read: String
            if key.codec.lenient {
                read = "variants.lenient(\(name))"
            } else if key.codec.errorName {
                read = "try variants.failure(\(name))"
            } else if dictionary.valueSets.contains(where: { $0.key == key.name }) {
                let type = SwiftNames.type(kebab: key.name)
                read = "try variants.\(key.codec.presence == .required ? "required" : "value")(\(name), as: \(type).self)"
            } else if let element = dictionary.elements[key.name] {
                let (type, throwing) = elementType(element, of: dictionary)
                let map = throwing ? ".map { element throws(Contract.KeyError) in try \(type)(element) }" : ".map(\(type).init)"
                switch key.codec.presence {
                case .required: read = "try variants.required(\(name))" + map
                case .optional: read = "try variants.value(\(name))?" + map
                case .defaulted: read = "try (variants.value(\(name)) ?? [])" + map
                }
            } else {
                switch key.codec.presence {
                case .required: read = "try variants.required(\(name))"
                case .optional: read = "try variants.value(\(name))"
                case .defaulted(let value): read = "try variants.value(\(name)) ?? \(literal(value, of: key))"
                }
            }
            out += "            \(SwiftNames.escaped(dictionary.property(key))) = \(read)\n"
        }
        return out
    }

    private func encoding(_ key: DictionaryKey, of dictionary: Dictionary) -> String {
        let property = SwiftNames.escaped(dictionary.property(key))
        let optional = key.codec.presence == .optional ? "?" : ""
        var value = property
        if key.codec.errorName {
            value += "\(optional).errorName.rawValue"
        } else if dictionary.valueSets.contains(where: { $0.key == key.name }) {
            value += "\(optional).rawValue"
        } else if let element = dictionary.elements[key.name] {
            value += "\(optional).map(\\.\(elementTravels(element)))"
        }
        let insert = "properties.insert(Keys.\(SwiftNames.escaped(key.swiftName)), \(value))"
        guard key.codec.omitDefault, case .defaulted(let defaultValue) = key.codec.presence else { return "            \(insert)\n" }
        let condition = switch defaultValue {
        case "false": property
        case "true": "!\(property)"
        default: "!\(property).isEmpty"
        }
        return "            if \(condition) { \(insert) }\n"
    }

    /// The Swift type an element names, and whether reading one throws.
    private func elementType(_ name: String, of dictionary: Dictionary) -> (type: String, throwing: Bool) {
        if let target = model.dictionaries.first(where: { $0.name == name }) {
            return ("Contract.\(name)", target.rules != nil || target.keys.contains { !$0.codec.lenient })
        }
        let owner = model.structs.first { $0.name == name }!.owner
        return (owner == nil ? "Contract.\(name)" : name, false)
    }

    /// What an element is written as: a dictionary's `variants`, a structure's `structure`.
    private func elementTravels(_ name: String) -> String {
        model.dictionaries.first { $0.name == name && $0.structure == nil } != nil ? "variants" : "structure"
    }

    private func propertyType(_ key: DictionaryKey, of dictionary: Dictionary) -> String {
        let type: String
        if key.codec.errorName {
            type = "Contract.Failure"
        } else if dictionary.valueSets.contains(where: { $0.key == key.name }) {
            type = SwiftNames.type(kebab: key.name)
        } else if let element = dictionary.elements[key.name] {
            type = "[\(elementType(element, of: dictionary).type)]"
        } else {
            type = key.swiftType
        }
        return key.codec.presence == .optional ? type + "?" : type
    }

    private func literal(_ value: String, of key: DictionaryKey) -> String {
        switch value {
        case "empty": key.signature == "s" ? "\"\"" : key.signature.hasPrefix("a{") ? "[:]" : "[]"
        default: value
        }
    }

    /// `title`, `s`: required. — how the key travels, for the property's documentation.
    private func describe(_ key: DictionaryKey, of dictionary: Dictionary) -> String {
        var text = "`\(key.name)`, `\(key.signature)`"
        if let element = dictionary.elements[key.name] { text += " of `\(element)`" }
        if key.codec.errorName { text += ", an error's name" }
        switch key.codec.presence {
        case .required: text += ": required"
        case .optional: text += key.codec.lenient ? ": nil when absent or of another type" : ": nil when absent"
        case .defaulted(let value):
            text += ": \(literal(value, of: key)) when absent" + (key.codec.omitDefault ? ", and left out when it is" : "")
        }
        return text + "."
    }

    private func holders(_ dictionary: Dictionary) -> String {
        dictionary.holders.prefix(3).joined(separator: ", ")
            + (dictionary.holders.count > 3 ? " and \(dictionary.holders.count - 3) more" : "")
    }

    private func structDeclaration(_ type: StructType, indent: Int) -> String {
        let pad = String(repeating: " ", count: indent)
        let fields = zip(type.fields, type.signatures!).map { (SwiftNames.member(kebab: $0.0), try! SignatureTypes.swiftType(of: $0.1)) }
        let structure = "Structure<" + fields.map(\.1).joined(separator: ", ") + ">"
        var out = doc("`(\(type.signatures!.joined()))` (`io.waypost.Struct`): \(type.fields.joined(separator: ", ")).", indent: indent)
        out += pad + "public struct \(type.name): Sendable, Hashable {\n"
        for (name, swiftType) in fields { out += pad + "    public var \(SwiftNames.escaped(name)): \(swiftType)\n" }
        out += "\n" + pad + "    public init(" + wrapped(fields.map { "\($0.0): \($0.1)" }, indent: indent + 4) + ") {\n"
        for (name, _) in fields { out += pad + "        self.\(name) = \(SwiftNames.escaped(name))\n" }
        out += pad + "    }\n\n"
        let names = fields.map(\.0).map { "self." + $0 }
        out += pad + "    public init(_ structure: \(structure)) { (\(names.joined(separator: ", "))) = structure.fields }\n\n"
        out += pad + "    public var structure: \(structure) { Structure((\(fields.map(\.0).joined(separator: ", ")))) }\n"
        return out + pad + "}\n"
    }

    /// The keys enum and each value set, inside the dictionary's type.
    private func keysAndValues(_ dictionary: Dictionary) -> String {
        var out = doc("The keys of `\(dictionary.name)` dictionaries (`io.waypost.Dictionary`), each typed by its value: every key an argument holding one lists (\(holders(dictionary))).", indent: 4)
        out += "    public enum Keys {\n"
        for key in dictionary.keys {
            out += "        /// `\(key.name)`, `\(key.signature)`" + (key.words.isEmpty ? "" : ", \(key.words)") + ".\n"
            out += "        public static let \(SwiftNames.escaped(key.swiftName)) = Contract.Key<\(key.swiftType)>(\(SwiftNames.literal(key.name)))\n"
        }
        out += "        /// Every key, in the order the XML lists them.\n"
        out += "        public static let all: [Contract.KeyDeclaration] = "
            + list(dictionary.keys.map { "\(SwiftNames.escaped($0.swiftName)).declaration" }, indent: 8)
        out += "    }\n"
        for set in dictionary.valueSets {
            let type = SwiftNames.type(kebab: set.key)
            out += "\n"
            if let swiftType = set.swiftType {
                out += doc("The values of `\(set.key)` (`io.waypost.Values`): those of `\(swiftType)` (`io.waypost.Swift.Values`), whose raw values a test checks against the XML.", indent: 4)
                out += "    public typealias \(type) = \(swiftType)\n"
            } else {
                out += doc("The values of `\(set.key)` (`io.waypost.Values`).", indent: 4)
                out += "    public enum \(type): String, Sendable, Hashable, CaseIterable {\n"
                for value in set.values {
                    let name = SwiftNames.member(kebab: value)
                    out += "        case \(SwiftNames.escaped(name))" + (name == value ? "\n" : " = \(SwiftNames.literal(value))\n")
                }
                out += "    }\n"
            }
        }
        return out
    }

    /// Parameters on one line when short, else wrapped at 110 columns, one indent deeper.
    private func wrapped(_ parameters: [String], indent: Int) -> String {
        let inline = parameters.joined(separator: ", ")
        if indent + 20 + inline.count <= 110 { return inline }
        let pad = String(repeating: " ", count: indent + 4)
        var lines: [String] = []
        var line = ""
        for parameter in parameters {
            if !line.isEmpty, pad.count + line.count + parameter.count + 2 > 110 {
                lines.append(line + ",")
                line = ""
            }
            line += (line.isEmpty ? "" : ", ") + parameter
        }
        lines.append(line)
        return "\n" + lines.map { pad + $0 }.joined(separator: "\n") + "\n" + String(repeating: " ", count: indent)
    }
}
