public import DBus

extension Contract {
    /// A key of one of the contract's `a{sv}` dictionaries, typed by the value it holds.
    public struct Key<Value: BusValue>: Sendable, Hashable {
        public let name: String

        public init(_ name: String) { self.name = name }

        /// The key as an `io.waypost.Key` annotation in `dbus/*.xml` states it.
        public var declaration: KeyDeclaration { KeyDeclaration(name, Value.busSignature) }

        /// The value as a variant; the contract's scalars are wrapped directly, without the
        /// scratch message `Variant.init` writes (outcomes are made on the way of every link).
        func variant(_ value: Value) -> Variant {
            switch value {
            case let value as String: .string(value)
            case let value as Bool: .boolean(value)
            case let value as UInt32: .uint32(value)
            case let value as UInt64: .uint64(value)
            case let value as Int64: .int64(value)
            case let value as ObjectPath: .objectPath(value)
            default: Variant(value)
            }
        }
    }

    /// A key's name and the D-Bus type of its value.
    public struct KeyDeclaration: Sendable, Hashable, CustomStringConvertible {
        public let name: String
        public let signature: Signature

        public init(_ name: String, _ signature: Signature) {
            self.name = name
            self.signature = signature
        }

        /// As the annotation's value reads: `single-scene b`.
        public var description: String { "\(name) \(signature)" }
    }

    /// A dictionary that breaks the contract. Each case names the offending key and value.
    public enum KeyError: Error, Hashable, Sendable, CustomStringConvertible {
        /// The value of `key` is of another D-Bus type.
        case wrongType(key: String, expected: Signature, found: Signature)
        /// None of `keys` is present, and one of them must be.
        case missing(keys: [String])
        /// `key` holds `value`, which is none of those the contract allows.
        case unexpectedValue(key: String, value: String, allowed: [String])
        /// `key` holds `bytes` bytes (`value` is its start), over the contract's `limit`.
        case tooLarge(key: String, value: String, bytes: Int, limit: Int)

        public var description: String {
            switch self {
            case .wrongType(let key, let expected, let found): "\"\(key)\" must be of type \(expected), not \(found)"
            case .missing(let keys): keys.map { "\"\($0)\"" }.joined(separator: " or ") + " is missing"
            case .unexpectedValue(let key, let value, let allowed):
                "\"\(key)\" is \"\(value)\"; expected \(allowed.joined(separator: " or "))"
            case .tooLarge(let key, let value, let bytes, let limit):
                "\"\(key)\" holds \(bytes) bytes (\"\(value)…\"), over its limit of \(limit)"
            }
        }
    }
}

extension [String: Variant] {
    /// The value of `key`; nil when the dictionary does not hold it.
    /// - Throws: `KeyError.wrongType` when it holds a value of another type.
    public func value<Content>(_ key: Contract.Key<Content>) throws(Contract.KeyError) -> Content? {
        guard let variant = self[key.name] else { return nil }
        do { return try variant.decode(as: Content.self) } catch {
            throw .wrongType(key: key.name, expected: Content.busSignature, found: variant.signature)
        }
    }

    /// The value of a key the dictionary must hold.
    /// - Throws: `KeyError.missing` without it, `KeyError.wrongType` when it has another type.
    public func required<Content>(_ key: Contract.Key<Content>) throws(Contract.KeyError) -> Content {
        guard let value = try value(key) else { throw .missing(keys: [key.name]) }
        return value
    }

    /// Adds `key` with `value`; a nil value adds nothing, as the contract's optional keys are absent.
    public mutating func insert<Content>(_ key: Contract.Key<Content>, _ value: Content?) {
        if let value { self[key.name] = key.variant(value) }
    }
}

extension PropertyList {
    /// Appends `key` with `value`; a nil value adds nothing, as the contract's optional keys are absent.
    public mutating func insert<Content>(_ key: Contract.Key<Content>, _ value: Content?) {
        if let value { append(key.name, key.variant(value)) }
    }
}

// What the generated codecs (Generated/*+Dictionaries.swift) read with, beside `value` and `required`.
extension [String: Variant] {
    /// The value of `key`, one of `Values` (its `io.waypost.Values`); nil when absent.
    /// - Throws: `KeyError.wrongType`, or `unexpectedValue` for a string outside the set.
    func value<Values: RawRepresentable & CaseIterable>(
        _ key: Contract.Key<String>, as _: Values.Type
    ) throws(Contract.KeyError) -> Values? where Values.RawValue == String {
        guard let text = try value(key) else { return nil }
        guard let known = Values(rawValue: text) else {
            throw .unexpectedValue(key: key.name, value: text, allowed: Values.allCases.map(\.rawValue))
        }
        return known
    }

    /// The value of a key of a closed set that the dictionary must hold.
    /// - Throws: `KeyError.missing`, `wrongType` or `unexpectedValue`.
    func required<Values: RawRepresentable & CaseIterable>(
        _ key: Contract.Key<String>, as type: Values.Type
    ) throws(Contract.KeyError) -> Values where Values.RawValue == String {
        guard let known = try value(key, as: type) else { throw .missing(keys: [key.name]) }
        return known
    }

    /// The error an `error-name` key names (`io.waypost.Error.<Name>`); nil when absent.
    /// - Throws: `KeyError.wrongType`, or `unexpectedValue` for a name outside the contract.
    func failure(_ key: Contract.Key<String>) throws(Contract.KeyError) -> Contract.Failure? {
        guard let text = try value(key) else { return nil }
        guard let name = try? ErrorName(text), let known = Contract.Failure(name) else {
            throw .unexpectedValue(key: key.name, value: text, allowed: Contract.Failure.allCases.map(\.errorName.rawValue))
        }
        return known
    }

    /// The value of a `lenient` key: nil when absent or of another type.
    func lenient<Content>(_ key: Contract.Key<Content>) -> Content? {
        (try? value(key)) ?? nil
    }
}

extension Contract {
    /// What a dictionary's keys cannot say, written by hand beside its generated codec: a check
    /// across keys or over sizes (`io.waypost.Rules` in the XML says what). The codec calls these;
    /// they never read a key into the struct themselves.
    protocol DictionaryRules {
        /// Refuses, or drops keys of, a dictionary before its codec reads its keys.
        static func checkRules(reading variants: inout [String: Variant]) throws(KeyError)
        /// Drops what the rules leave out of a dictionary its codec has written.
        func applyRules(writing properties: inout PropertyList)
    }
}

extension PropertyList {
    /// Without `key`'s entry (the rules' use; a list is short).
    mutating func remove<Content>(_ key: Contract.Key<Content>) {
        guard entries.contains(where: { $0.key == key.name }) else { return }
        var kept = PropertyList(capacity: entries.count)
        for entry in entries where entry.key != key.name { kept.append(entry.key, entry.value) }
        self = kept
    }
}
