// What the files of dbus/ state, read for the Swift contract: each interface's members with their
// arguments, policies and errors, and the a{sv} dictionaries their arguments hold. Everything the
// generated Swift names comes from here; anything the XML states that the Swift could not say
// faithfully is refused with the file and the element. One file over 300 lines: the model and its
// checks of the XML are read together.

/// The annotations this generator reads; `org.freedesktop.DBus.*` ones are the specification's and
/// pass untouched, and any other name is refused (a misspelt annotation would otherwise say nothing).
enum Annotations {
    static let errorPrefix = "io.waypost.Error."
    static let busName = "io.waypost.BusName"
    static let swiftName = "io.waypost.Swift.Name"
    static let serving = "io.waypost.Serving"
    static let callsInFlight = "io.waypost.CallsInFlight"
    static let key = "io.waypost.Key"
    static let values = "io.waypost.Values"
    static let dictionary = "io.waypost.Dictionary"
    static let swiftValues = "io.waypost.Swift.Values"
    static let structure = "io.waypost.Struct"
    static let element = "io.waypost.Element"
    static let rules = "io.waypost.Rules"
    static let swiftProperty = "io.waypost.Swift.Property"
    static let swiftHandWritten = "io.waypost.Swift.HandWritten"
    static let standardPrefix = "org.freedesktop.DBus."
}

/// `io.waypost.Serving`: how the daemon serves a method. The meanings are the generated enum's documentation.
enum Serving: String, CaseIterable {
    case actsAsTheApp = "acts-as-the-app"
    case takesTurns = "takes-turns"
    case delivers

    var meaning: String {
        switch self {
        case .actsAsTheApp:
            "The caller acts as its registered app: the call takes its turn as `takesTurns` does, and the caller's process must still run the program it registered with."
        case .takesTurns:
            "Any connection may call it; it reads or changes the dispatcher's state, one such call (or `actsAsTheApp` one) of a connection at a time."
        case .delivers:
            "Any connection may call it; it delivers an event, awaiting apps, beside the connection's other calls."
        }
    }
}

/// `io.waypost.CallsInFlight`: how many calls of a method one caller may have in flight at the daemon.
enum CallsInFlight: String, CaseIterable {
    case few, many

    var meaning: String {
        switch self {
        case .few: "What an app says of itself and its scenes, and commands' queries: a few at a time (16 a caller, 64 in all)."
        case .many: "Events and the desktop search's questions, which come several at once (32 a caller, 128 in all)."
        }
    }
}

struct Parameter {
    var name: String
    var signature: String
    /// `io.waypost.Dictionary`: the dictionary whose keys it holds.
    var dictionary: String?
    /// Its `io.waypost.Key` names, in the XML's order.
    var keys: [String] = []
}

struct Member {
    var kind: MemberElement.Kind
    var name: String
    var swiftName: String
    var arguments: [Parameter] = []
    var results: [Parameter] = []
    var policy: (serving: Serving, callsInFlight: CallsInFlight)?
    /// What the comment before it says, its first sentence.
    var summary: String?
    /// A property's.
    var type: String?
    var access: String?
}

struct Interface {
    var name: String
    var swiftName: String
    var fileName: String
    var summary: String?
    var objectPath: String?
    var busName: String?
    var members: [Member] = []
    /// `io.waypost.Error.<Name>` → what it means here, in the XML's order.
    var errors: [(name: String, meaning: String)] = []
    /// `(dictionary, key)` of each `io.waypost.Values` its arguments state, in the XML's order.
    var valueSets: [(dictionary: String, key: String)] = []
}

struct DictionaryKey {
    var name: String
    var signature: String
    var swiftName: String
    var swiftType: String
    var codec = KeyCodec()
    /// The codec's words as the XML writes them, the same wherever the key is stated.
    var words = ""
}

struct ValueSet {
    var key: String
    var values: [String]
    /// `io.waypost.Swift.Values`: the Swift enum, of another module, that holds these values.
    var swiftType: String?
}

/// An `a{sv}` the contract names (`io.waypost.Dictionary`): every key any argument of that name holds.
struct Dictionary {
    var name: String
    var keys: [DictionaryKey] = []
    var valueSets: [ValueSet] = []
    /// `Interface.Member(argument)` of each argument that holds it.
    var holders: [String] = []
    /// The Swift name of the interface of the first argument that holds it: its generated file.
    var interface = ""
    /// The file of `dbus/` of that argument, for messages.
    var fileName = ""
    /// `io.waypost.Element`: key → the dictionary or structure each element of its array is.
    var elements: [String: String] = [:]
    /// `io.waypost.Swift.Property`: key → its Swift property, where that is not the key's name.
    var propertyNames: [String: String] = [:]
    /// `io.waypost.Rules`: what a hand-written check adds to the generated codec.
    var rules: String?
    /// `io.waypost.Swift.HandWritten`: why no struct is generated (only its keys).
    var handWritten: String?
    /// `io.waypost.Struct` of the dictionary's own name: the structure it travels in.
    var structure: String?

    /// The Swift property of `key`.
    func property(_ key: DictionaryKey) -> String { propertyNames[key.name] ?? key.swiftName }
}

struct ContractModel {
    var interfaces: [Interface] = []
    var dictionaries: [Dictionary] = []
    /// `io.waypost.Struct`s, in the XML's order.
    var structs: [StructType] = []

    /// Every error name, with each interface's meaning, sorted by name.
    var failures: [(name: String, meanings: [(interface: String, meaning: String)])] {
        var byName: [String: [(interface: String, meaning: String)]] = [:]
        for interface in interfaces {
            for error in interface.errors { byName[error.name, default: []].append((interface.name, error.meaning)) }
        }
        return byName.keys.sorted().map { ($0, byName[$0]!) }
    }

    /// Reads every file, in the order given.
    /// - Throws: `GeneratorError` naming the file and what in it cannot become Swift faithfully.
    init(_ files: [IntrospectionFile]) throws(GeneratorError) {
        for file in files {
            for element in file.interfaces { interfaces.append(try read(element, in: file)) }
        }
        var swiftNames: Set<String> = []
        for interface in interfaces where !swiftNames.insert(interface.swiftName).inserted {
            throw GeneratorError(interface.fileName, "two interfaces are named \(interface.swiftName) in Swift: give one io.waypost.Swift.Name")
        }
        try resolveElements()
    }

    private mutating func read(_ element: InterfaceElement, in file: IntrospectionFile) throws(GeneratorError) -> Interface {
        func fail(_ message: String) -> GeneratorError { GeneratorError(file.fileName, "\(element.name): \(message)") }
        var swiftName = String(element.name.split(separator: ".").last ?? "")
        var interface = Interface(
            name: element.name, swiftName: swiftName, fileName: file.fileName,
            summary: file.headerComment.flatMap(Self.headline), objectPath: file.nodePath)
        for annotation in element.annotations {
            switch annotation.name {
            case Annotations.busName: interface.busName = annotation.value
            case Annotations.swiftName: swiftName = annotation.value
            case let name where name.hasPrefix(Annotations.errorPrefix):
                let error = String(name.dropFirst(Annotations.errorPrefix.count))
                guard SwiftNames.isIdentifier(error), error.first!.isUppercase, !error.contains("_") else {
                    throw fail("\(name): an error's name is one word of letters and digits, starting with a capital")
                }
                guard !interface.errors.contains(where: { $0.name == error }) else { throw fail("\(name) twice") }
                guard !annotation.value.isEmpty else { throw fail("\(name) says nothing of when it is sent") }
                interface.errors.append((error, annotation.value))
            default: try Self.checkForeign(annotation, fail)
            }
        }
        guard SwiftNames.isIdentifier(swiftName), swiftName.first!.isUppercase else {
            throw fail("\"\(swiftName)\" cannot name a Swift type: give io.waypost.Swift.Name")
        }
        interface.swiftName = swiftName

        var swiftMembers: Set<String> = ["interface", "objectPath", "busName", "members", "methods", "signals", "properties", "errors", "errorTable", "values"]
        for memberElement in element.members {
            let member = try read(memberElement, of: &interface, fail)
            guard swiftMembers.insert(member.swiftName).inserted else {
                throw fail("\(member.name) is \(member.swiftName) in Swift, a name already taken")
            }
            interface.members.append(member)
        }
        // `values` is by key name: one dictionary's set per name.
        var sets: [(dictionary: String, key: String)] = []
        for set in interface.valueSets where !sets.contains(where: { $0 == set }) {
            if let other = sets.first(where: { $0.key == set.key }) {
                throw fail("the values of \(set.key) are stated for \(other.dictionary) and \(set.dictionary)")
            }
            sets.append(set)
        }
        interface.valueSets = sets
        // A daemon serves every method of an interface it serves; one without a policy is an omission.
        let methods = interface.members.filter { $0.kind == .method }
        let withPolicy = methods.filter { $0.policy != nil }
        if !withPolicy.isEmpty, let missing = methods.first(where: { $0.policy == nil }) {
            throw fail("\(missing.name) has no io.waypost.Serving and io.waypost.CallsInFlight, which its interface's other methods have")
        }
        return interface
    }

    private mutating func read(
        _ element: MemberElement, of interface: inout Interface, _ fail: (String) -> GeneratorError
    ) throws(GeneratorError) -> Member {
        guard SwiftNames.isIdentifier(element.name), element.name.first!.isUppercase else {
            throw fail("\(element.name): a member's name is letters and digits, starting with a capital")
        }
        var member = Member(
            kind: element.kind, name: element.name, swiftName: SwiftNames.member(upperCamel: element.name),
            summary: element.comment.flatMap(Self.headline), type: element.type, access: element.access)
        var serving: Serving?, callsInFlight: CallsInFlight?
        for annotation in element.annotations {
            switch annotation.name {
            case Annotations.serving where element.kind == .method:
                guard serving == nil, let value = Serving(rawValue: annotation.value) else {
                    throw fail("\(element.name): io.waypost.Serving is once, one of " + Serving.allCases.map(\.rawValue).joined(separator: " | "))
                }
                serving = value
            case Annotations.callsInFlight where element.kind == .method:
                guard callsInFlight == nil, let value = CallsInFlight(rawValue: annotation.value) else {
                    throw fail("\(element.name): io.waypost.CallsInFlight is once, one of " + CallsInFlight.allCases.map(\.rawValue).joined(separator: " | "))
                }
                callsInFlight = value
            default: try Self.checkForeign(annotation) { fail("\(element.name): \($0)") }
            }
        }
        switch (serving, callsInFlight) {
        case (let serving?, let callsInFlight?): member.policy = (serving, callsInFlight)
        case (nil, nil): break
        default: throw fail("\(element.name): io.waypost.Serving and io.waypost.CallsInFlight go together")
        }
        if element.kind == .property {
            guard let type = element.type, (try? SignatureTypes.swiftType(of: type)) != nil else {
                throw fail("\(element.name): a property's type is one complete D-Bus type")
            }
            guard ["read", "write", "readwrite"].contains(element.access ?? "") else {
                throw fail("\(element.name): a property's access is read, write or readwrite")
            }
        }
        for argument in element.arguments {
            let place = "\(interface.swiftName).\(element.name)(\(argument.name ?? "?"))"
            let parameter = try read(argument, place: place, of: &interface) { fail("\(element.name): \($0)") }
            switch (element.kind, argument.direction) {
            case (.method, "out"): member.results.append(parameter)
            case (.method, nil), (.method, "in"), (.signal, nil), (.signal, "out"): member.arguments.append(parameter)
            default: throw fail("\(element.name): an argument's direction is in or out (a signal's, none)")
            }
        }
        return member
    }

    private mutating func read(
        _ argument: ArgumentElement, place: String, of interface: inout Interface, _ fail: (String) -> GeneratorError
    ) throws(GeneratorError) -> Parameter {
        guard let name = argument.name, !name.isEmpty else { throw fail("every argument is named") }
        do { _ = try SignatureTypes.swiftType(of: argument.type) } catch {
            throw fail("\(name): \(error.message)")
        }
        var parameter = Parameter(name: name, signature: argument.type)
        var keys: [DictionaryKey] = []
        var valueSets: [ValueSet] = []
        var extras = DictionaryExtras()
        for annotation in argument.annotations {
            switch annotation.name {
            case Annotations.dictionary:
                guard parameter.dictionary == nil, SwiftNames.isIdentifier(annotation.value), annotation.value.first!.isUppercase else {
                    throw fail("\(name): io.waypost.Dictionary is once, a name in capitalised words (RoutingOutcome)")
                }
                parameter.dictionary = annotation.value
            case Annotations.key:
                let words = annotation.value.split(separator: " ")
                guard words.count >= 2 else { throw fail("\(name): io.waypost.Key is \"name type [word …]\", not \"\(annotation.value)\"") }
                let key = String(words[0]), signature = String(words[1])
                let swiftName = SwiftNames.member(kebab: key)
                guard key.first.map({ $0.isLowercase }) == true, SwiftNames.isIdentifier(swiftName) else {
                    throw fail("\(name): the key \"\(key)\" is not lower-case words joined by hyphens")
                }
                let swiftType: String
                do { swiftType = try SignatureTypes.swiftType(of: signature) } catch { throw fail("\(name): key \(key): \(error.message)") }
                guard !keys.contains(where: { $0.name == key }) else { throw fail("\(name): the key \(key) twice") }
                let codec: KeyCodec
                do { codec = try KeyCodec(words.dropFirst(2).map { $0 }, signature: signature) } catch { throw fail("\(name): key \(key): \(error.message)") }
                keys.append(DictionaryKey(
                    name: key, signature: signature, swiftName: swiftName, swiftType: swiftType, codec: codec,
                    words: words.dropFirst(2).joined(separator: " ")))
            case Annotations.values:
                let parts = annotation.value.split(separator: ":", maxSplits: 1)
                let values = parts.count == 2 ? parts[1].split(separator: "|").map { String($0.filter { $0 != " " }) } : []
                guard parts.count == 2, !values.isEmpty, !values.contains(""), Set(values).count == values.count,
                      values.allSatisfy({ SwiftNames.isIdentifier(SwiftNames.member(kebab: $0)) })
                else { throw fail("\(name): io.waypost.Values is \"key: value | value | …\", distinct values, not \"\(annotation.value)\"") }
                valueSets.append(ValueSet(key: String(parts[0]), values: values))
            case Annotations.swiftValues:
                let parts = annotation.value.split(separator: ":", maxSplits: 1)
                guard parts.count == 2, let index = valueSets.firstIndex(where: { $0.key == parts[0] }) else {
                    throw fail("\(name): io.waypost.Swift.Values is \"key: Module.Type\", after that key's io.waypost.Values")
                }
                valueSets[index].swiftType = String(parts[1].filter { $0 != " " })
            default:
                guard try !Self.readExtra(annotation, into: &extras, { fail("\(name): \($0)") }) else { continue }
                try Self.checkForeign(annotation) { fail("\(name): \($0)") }
            }
        }
        guard keys.isEmpty == (parameter.dictionary == nil) else {
            throw fail("\(name): an argument with io.waypost.Key annotations names its dictionary (io.waypost.Dictionary), and only such an argument")
        }
        guard keys.isEmpty || argument.type.contains("a{sv}") else { throw fail("\(name): keys on an argument that holds no a{sv}") }
        for set in valueSets {
            guard let key = keys.first(where: { $0.name == set.key }), key.signature == "s" else {
                throw fail("\(name): io.waypost.Values for \"\(set.key)\", which is no string key of this argument")
            }
        }
        parameter.keys = keys.map(\.name)
        if let dictionary = parameter.dictionary {
            try merge(dictionary, keys: keys, valueSets: valueSets, holder: place, fileName: interface.fileName) { fail("\(name): \($0)") }
            interface.valueSets += valueSets.map { (dictionary, $0.key) }
        }
        try mergeExtras(
            extras, dictionary: parameter.dictionary, keys: keys, argumentSignature: argument.type,
            interface: interface.swiftName, fileName: interface.fileName
        ) { fail("\(name): \($0)") }
        return parameter
    }

    /// Adds an argument's keys and value sets to its dictionary: a key has one type, a value set one list, wherever stated.
    private mutating func merge(
        _ name: String, keys: [DictionaryKey], valueSets: [ValueSet], holder: String, fileName: String, _ fail: (String) -> GeneratorError
    ) throws(GeneratorError) {
        let index = dictionaries.firstIndex { $0.name == name } ?? dictionaries.count
        if index == dictionaries.count {
            dictionaries.append(Dictionary(name: name, interface: String(holder.prefix { $0 != "." }), fileName: fileName))
        }
        var dictionary = dictionaries[index]
        for (position, key) in keys.enumerated() {
            if let known = dictionary.keys.first(where: { $0.name == key.name }) {
                guard known.signature == key.signature, known.words == key.words else {
                    let stated = { (key: DictionaryKey) in key.words.isEmpty ? key.signature : "\"\(key.signature) \(key.words)\"" }
                    throw fail("\(name)'s key \(key.name) is \(stated(known)) in \(dictionary.holders[0]), \(stated(key)) here")
                }
            } else {
                guard !dictionary.keys.contains(where: { $0.swiftName == key.swiftName }) else {
                    throw fail("\(name)'s keys would have two Swift names \(key.swiftName)")
                }
                // A key another argument adds goes right after the key it follows there: one order for all.
                let after = position == 0 ? nil : dictionary.keys.firstIndex { $0.name == keys[position - 1].name }
                dictionary.keys.insert(key, at: after.map { $0 + 1 } ?? dictionary.keys.count)
            }
        }
        for set in valueSets {
            if let known = dictionary.valueSets.first(where: { $0.key == set.key }) {
                guard known.values == set.values, set.swiftType == nil || set.swiftType == known.swiftType else {
                    throw fail("\(name)'s values of \(set.key) differ from \(dictionary.holders[0])'s")
                }
            } else {
                dictionary.valueSets.append(set)
            }
        }
        dictionary.holders.append(holder)
        dictionaries[index] = dictionary
    }

    /// Refuses an annotation this generator does not know, unless it is the D-Bus specification's.
    private static func checkForeign(_ annotation: Annotation, _ fail: (String) -> GeneratorError) throws(GeneratorError) {
        guard annotation.name.hasPrefix(Annotations.standardPrefix) else {
            throw fail("\(annotation.name) is no annotation this generator knows here (see the header of dbus/io.waypost.Dispatcher1.xml)")
        }
    }

    /// The first sentence of a comment, its lines joined: what the generated documentation says.
    static func headline(_ comment: String) -> String? {
        let words = comment.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" })
        var sentence: [Substring] = []
        for word in words {
            sentence.append(word)
            if word.hasSuffix("."), !word.hasSuffix("..."), word.count > 2 { break }
        }
        let text = sentence.joined(separator: " ")
        return text.isEmpty ? nil : text
    }
}

/// Why the XML cannot become the contract's Swift: the file, and what in it.
struct GeneratorError: Error, CustomStringConvertible {
    let description: String
    init(_ file: String, _ message: String) { description = "\(file): \(message)" }
}
