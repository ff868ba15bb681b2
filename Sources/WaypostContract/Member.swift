public import DBus

// The types the generated contract fills (Generated/): a member with its arguments and policy, an
// error with its meaning, a property. Each interface's constants are generated from dbus/*.xml.

extension Contract {
    /// A method or signal of the contract, as `dbus/*.xml` declares it.
    public struct Member: Sendable, Hashable {
        public enum Kind: String, Sendable, Hashable {
            case method, signal
        }

        /// How the daemon serves a method (`io.waypost.Serving`) and how many of its calls one caller
        /// may have in flight (`io.waypost.CallsInFlight`); what each means is the daemon's to do.
        public struct Policy: Sendable, Hashable {
            public let serving: Serving
            public let callsInFlight: CallsInFlight

            public init(serving: Serving, callsInFlight: CallsInFlight) {
                (self.serving, self.callsInFlight) = (serving, callsInFlight)
            }
        }

        public let kind: Kind
        public let name: MemberName
        /// What a call carries (a signal's arguments).
        public let arguments: [Parameter]
        /// What a method returns.
        public let results: [Parameter]
        /// What a reply to the method must carry: its results' signatures, joined (made once: the
        /// daemon checks every app's acknowledgement against it).
        public let outputSignature: String
        /// How the daemon serves it; nil for a member the daemon does not serve (an app's, a signal).
        public let policy: Policy?

        init(kind: Kind, name: MemberName, arguments: [Parameter], results: [Parameter], policy: Policy?) {
            (self.kind, self.name, self.arguments, self.results, self.policy) = (kind, name, arguments, results, policy)
            outputSignature = results.map(\.signature.rawValue).joined()
        }

        /// A method exported as declared here, answered by `handler`.
        public func exported(
            _ handler: nonisolated(nonsending) @escaping @Sendable (MethodCall) async throws -> Reply
        ) -> Method {
            Method(name, arguments: arguments.map(\.argument), returns: results.map(\.argument), handler: handler)
        }

        /// A method exported as declared here, answered by `handler` without suspending: on the
        /// connection's thread as the call arrives, with no task (`Method.answeringAtOnce`).
        public func exportedAnsweringAtOnce(_ handler: @escaping @Sendable (MethodCall) throws -> Reply) -> Method {
            .answeringAtOnce(name, arguments: arguments.map(\.argument), returns: results.map(\.argument), handler: handler)
        }

        /// A signal declared for introspection as declared here.
        public var signalDeclaration: SignalDeclaration {
            SignalDeclaration(name, arguments: arguments.map(\.argument))
        }

        static func method(_ name: MemberName, in arguments: [Parameter] = [], out results: [Parameter] = [], policy: Policy? = nil) -> Member {
            Member(kind: .method, name: name, arguments: arguments, results: results, policy: policy)
        }

        static func signal(_ name: MemberName, _ arguments: [Parameter]) -> Member {
            Member(kind: .signal, name: name, arguments: arguments, results: [], policy: nil)
        }
    }

    /// An argument of a member; for an `a{sv}` (or an array of them), the keys it holds.
    public struct Parameter: Sendable, Hashable {
        public let name: String
        public let signature: Signature
        public let keys: [KeyDeclaration]

        init(_ name: String, _ signature: Signature, keys: [KeyDeclaration] = []) {
            (self.name, self.signature, self.keys) = (name, signature, keys)
        }

        /// As an exported interface declares it.
        public var argument: Argument { Argument(name, signature) }
    }

    /// A property of an interface, as `dbus/*.xml` declares it.
    public struct PropertyDeclaration: Sendable, Hashable {
        public enum Access: String, Sendable, Hashable {
            case read, write, readwrite
        }

        public let name: MemberName
        public let signature: Signature
        public let access: Access

        init(_ name: MemberName, _ signature: Signature, access: Access) {
            (self.name, self.signature, self.access) = (name, signature, access)
        }

        /// The property exported as declared here, read from `value`.
        public func exported(_ value: @escaping @Sendable () async throws -> Variant) -> Property {
            Property(name, signature, value: value)
        }
    }

    /// An error an interface replies with (`io.waypost.Error.<Name>`), and when: the annotation's text.
    public struct ErrorDeclaration: Sendable, Hashable {
        public let failure: Failure
        public let meaning: String

        init(_ failure: Failure, _ meaning: String) {
            (self.failure, self.meaning) = (failure, meaning)
        }
    }
}

extension Contract.FreedesktopApplication {
    /// Where a DBusActivatable app serves it: its id with `.` as `/` and `-` as `_`, after a `/`.
    public static func objectPath(forApplicationID id: String) -> ObjectPath {
        let path = "/" + String(id.map { $0 == "." ? "/" : $0 == "-" ? "_" : $0 })
        return (try? ObjectPath(path)) ?? .root
    }
}

extension Contract.Handoff1 {
    /// Its methods and signal (`members`, by the name the Handoff tests know).
    public static var all: [Contract.Member] { members }
}
