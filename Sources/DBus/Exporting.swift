// One file over 300 lines: what an exported object is made of (arguments, methods, signals,
// properties, interfaces, a call and its reply) and how a connection dispatches a call to it, read
// together since each type exists only for that dispatch.
import Synchronization

/// A named, typed argument of a method or signal, as introspection shows it.
public struct Argument: Sendable, Hashable {
    public var name: String
    public var signature: Signature

    /// - Parameter signature: one complete type.
    public init(_ name: String, _ signature: Signature) {
        precondition(signature.isSingleCompleteType, "argument '\(name)' must be one complete type, not '\(signature)'")
        self.name = name
        self.signature = signature
    }
}

/// A method in an exported interface: its arguments, its results and the handler that answers it.
///
/// Calls whose signature differs from `arguments` are refused with `InvalidArgs` before the handler
/// runs; a reply whose signature differs from `returns` is replaced by a `Failed` error (a bug in the
/// handler).
///
/// A handler that may await (`init`) runs as its own task, where that task does
/// (`nonisolated(nonsending)`): on the connection's thread, isolated to `executor.serial`, when the
/// object was exported with the connection's `executor` — so an actor living there is called
/// without a hop — and on the global executor otherwise.
///
/// A handler that never suspends (`Method.answeringAtOnce`, e.g. an acknowledgement) is called on
/// the connection's thread as its call is dispatched, with no task and no thread hop, unless the
/// object was exported with an executor other than the connection's (then it runs there, as a
/// task). It must never block. When the object was exported with the connection's `executor` and
/// jobs are already queued there, the call waits behind them, so calls are still answered in
/// arrival order.
public struct Method: Sendable {
    public var name: MemberName
    public var arguments: [Argument]
    public var returns: [Argument]
    let answer: Answer
    let inputSignature: String
    let outputSignature: String

    enum Answer: Sendable {
        typealias Awaiting = nonisolated(nonsending) @Sendable (MethodCall) async throws -> Reply
        case atOnce(@Sendable (MethodCall) throws -> Reply)
        case awaited(Awaiting)
    }

    public init(
        _ name: MemberName, arguments: [Argument] = [], returns: [Argument] = [],
        handler: nonisolated(nonsending) @escaping @Sendable (MethodCall) async throws -> Reply
    ) {
        self.init(name, arguments, returns, .awaited(handler))
    }

    /// A method whose handler never suspends (a name of its own: a trailing closure that does not
    /// await would otherwise pick it over `init` silently).
    public static func answeringAtOnce(
        _ name: MemberName, arguments: [Argument] = [], returns: [Argument] = [],
        handler: @escaping @Sendable (MethodCall) throws -> Reply
    ) -> Method {
        Method(name, arguments, returns, .atOnce(handler))
    }

    private init(_ name: MemberName, _ arguments: [Argument], _ returns: [Argument], _ answer: Answer) {
        self.name = name
        self.arguments = arguments
        self.returns = returns
        self.answer = answer
        inputSignature = arguments.map(\.signature.rawValue).joined()
        outputSignature = returns.map(\.signature.rawValue).joined()
    }

    /// Refuses a call whose arguments are not the declared ones, before the handler sees it.
    func accepts(_ call: MethodCall) throws(BusError) {
        let signature = call.message.signature.rawValue
        if signature != inputSignature {
            throw BusError(.invalidArgs, "\(name) takes '\(inputSignature)', not '\(signature)'")
        }
    }

    /// The handler's reply, unless it is not what the method declares.
    func checked(_ reply: OutgoingMessage) throws(BusError) -> OutgoingMessage {
        if reply.signature != outputSignature {
            throw BusError(.failed, "\(name) answered '\(reply.signature)' where it declares '\(outputSignature)'")
        }
        return reply
    }
}

/// A signal an interface emits, declared for introspection (emit it with `Connection.emit`).
public struct SignalDeclaration: Sendable, Hashable {
    public var name: MemberName
    public var arguments: [Argument]

    public init(_ name: MemberName, arguments: [Argument] = []) {
        self.name = name
        self.arguments = arguments
    }
}

/// A read-only property, served through `org.freedesktop.DBus.Properties` `Get` and `GetAll`.
public struct Property: Sendable {
    public var name: MemberName
    public var signature: Signature
    let value: @Sendable () async throws -> Variant

    /// - Parameter value: produces the current value; its signature must be `signature`.
    public init(_ name: MemberName, _ signature: Signature, value: @escaping @Sendable () async throws -> Variant) {
        self.name = name
        self.signature = signature
        self.value = value
    }
}

/// An interface an object exports: the table of its methods, signals and properties.
public struct Interface: Sendable {
    public var name: InterfaceName
    public var methods: [Method]
    public var signals: [SignalDeclaration]
    public var properties: [Property]

    public init(
        _ name: InterfaceName, methods: [Method] = [], signals: [SignalDeclaration] = [],
        properties: [Property] = []
    ) {
        self.name = name
        self.methods = methods
        self.signals = signals
        self.properties = properties
    }
}

/// A method call received by an exported object, as its handler sees it.
public struct MethodCall: Sendable {
    public let message: Message
    /// Its path, interface and member, read from libdbus once for dispatch.
    let address: CallAddress
    /// The caller's unique name as the bus stamped it, read from libdbus once: handlers ask for it
    /// several times, and the reply is addressed to it.
    private let stampedSender: BusName?

    init(message: Message) {
        self.message = message
        address = CallAddress(message)
        stampedSender = message.sender
    }

    /// The unique name of the caller (the bus always stamps it; on a peer connection, the
    /// connection does: the peer's `uniqueName`).
    public var sender: BusName { stampedSender ?? BusName(unchecked: ":unknown") }

    public var path: ObjectPath { address.path }
    public var interface: InterfaceName? { address.interface }
    public var member: MemberName { address.member }

    /// Reads the call's arguments as exactly these types.
    /// - Throws: `ArgumentError`, which the caller receives as `InvalidArgs` if the handler lets it go.
    @inlinable  // specialized where called, as `Message.decode` is
    public func arguments<each Value: BusValue>(_ types: repeat (each Value).Type) throws -> (repeat each Value) {
        try message.decode(repeat (each Value).self)
    }

    /// A reply carrying `values`.
    /// - Throws: `BusError` (`InvalidArgs`) when a value cannot travel, e.g. a string containing NUL.
    public func reply<each Value: BusValue>(_ values: repeat each Value) throws -> Reply {
        Reply(message: try OutgoingMessage.reply(to: message, from: stampedSender, repeat each values))
    }
}

/// A method's successful answer, made by `MethodCall.reply(_:)`.
public struct Reply: Sendable {
    let message: OutgoingMessage
}

/// The interfaces exported at one path, indexed for dispatch.
struct ExportedObject: Sendable {
    let interfaces: [InterfaceName: Interface]
    let order: [InterfaceName]
    /// Each interface's methods by name (the first of a name wins, as in a linear search).
    let methods: [InterfaceName: [MemberName: Method]]
    /// Where its handlers' tasks start; nil: the global concurrent executor.
    let executor: (any TaskExecutor)?
    /// Whether any of its methods answers at once (only then is a call's method looked up before
    /// its task starts).
    let answersSomeAtOnce: Bool

    init(_ interfaces: [Interface], executor: (any TaskExecutor)?) {
        self.executor = executor
        self.interfaces = Dictionary(interfaces.map { ($0.name, $0) }, uniquingKeysWith: { _, last in last })
        order = interfaces.map(\.name)
        methods = self.interfaces.mapValues { interface in
            Dictionary(interface.methods.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        }
        answersSomeAtOnce = interfaces.contains { interface in
            interface.methods.contains { if case .atOnce = $0.answer { true } else { false } }
        }
    }

    func method(_ member: MemberName, in interface: InterfaceName?) -> Method? {
        if let interface { return methods[interface]?[member] }
        for name in order { if let method = methods[name]?[member] { return method } }
        return nil
    }
}

extension Connection {
    /// Serves `interfaces` at `path` until `unexport(_:)` or the connection closes.
    ///
    /// `Introspect` and `org.freedesktop.DBus.Properties` (`Get`, `GetAll`) come with every object;
    /// libdbus answers `org.freedesktop.DBus.Peer` (`Ping`, `GetMachineId`) at any path. Calls to paths,
    /// interfaces or methods not exported get `UnknownObject` or `UnknownMethod`.
    ///
    /// Each call is answered by a task of its own (unless its method answers at once, `Method`),
    /// started on `executor` when given: pass this connection's `executor` to answer on its thread,
    /// with no thread hop (handlers must then never block). Such a task starts isolated to
    /// `executor.serial`, so a handler calling an actor that lives there (its `unownedExecutor` is
    /// `executor.serial`) does not hop either.
    /// - Throws: `BusError` `ObjectPathInUse` when something is already exported at `path`.
    public func export(_ path: ObjectPath, interfaces: [Interface], executor: (any TaskExecutor)? = nil) throws {
        let object = ExportedObject(interfaces, executor: executor)
        if !core.objects.add(object, at: path) { throw BusError(.objectPathInUse, "an object is already exported at \(path)") }
    }

    /// Stops serving `path`; calls already running finish.
    public func unexport(_ path: ObjectPath) {
        core.objects.remove(path)
    }
}

/// Where a received call is addressed, read from its header once.
struct CallAddress: Sendable {
    let path: ObjectPath
    let interface: InterfaceName?
    let member: MemberName

    init(_ message: Message) {
        path = message.path ?? .root
        interface = message.interface
        member = message.member ?? "Unknown"
    }
}

extension ErrorName {
    public static let objectPathInUse: ErrorName = "org.freedesktop.DBus.Error.ObjectPathInUse"
}

private let introspectable: InterfaceName = "org.freedesktop.DBus.Introspectable"
private let properties: InterfaceName = "org.freedesktop.DBus.Properties"

extension ConnectionCore {
    /// Starts answering a received method call (on the loop thread): at once when its method answers
    /// without suspending (`Method`), otherwise as a task, on the executor the object was exported with.
    func receiveMethodCall(_ message: Message) {
        let call = MethodCall(message: message)
        let (object, children) = objects.lookUp(call.path, listingChildren: call.interface == introspectable)
        if let object, object.answersSomeAtOnce, let (method, handler) = answeredAtOnce(call, by: object) {
            let outcome: Result<OutgoingMessage, BusError>
            do {
                try method.accepts(call)
                outcome = .success(try method.checked(handler(call).message))
            } catch {
                outcome = .failure(Self.busError(error))
            }
            reply(to: message, outcome)
        } else if let object, object.executor === executor {
            // Started isolated to the loop's serial executor: the handler, nonsending, runs there,
            // and so do actors on that executor and the calls they make — one job to start the
            // task and one per reply awaited, instead of a hop at every change of isolation.
            loopIsolation.assumeIsolated { loop in
                loop.start { await self.answer(call, object, children) }
            }
        } else {
            Task(executorPreference: object?.executor) { await self.answer(call, object, children) }
        }
    }

    /// The method and its handler when `call` may be answered here and now: its method never
    /// suspends, and it is neither for an object exported with another executor nor behind jobs
    /// queued on the connection's, whose calls must be answered in the order they came.
    private func answeredAtOnce(
        _ call: MethodCall, by object: ExportedObject
    ) -> (Method, @Sendable (MethodCall) throws -> Reply)? {
        // What every object answers itself, as `handle` does.
        if call.interface == properties || call.interface == introspectable && call.member == "Introspect" {
            return nil
        }
        guard let method = object.method(call.member, in: call.interface), case .atOnce(let handler) = method.answer
        else { return nil }
        if let objectExecutor = object.executor, objectExecutor !== executor || loop.hasQueuedJobs { return nil }
        return (method, handler)
    }

    nonisolated(nonsending) private func answer(_ call: MethodCall, _ object: ExportedObject?, _ children: [String]) async {
        let outcome: Result<OutgoingMessage, BusError>
        do {
            outcome = .success(try await handle(call, object, children))
        } catch {
            outcome = .failure(Self.busError(error))
        }
        reply(to: call.message, outcome)
    }

    /// Sends the reply or the error, unless the caller asked for none.
    private func reply(to message: Message, _ outcome: Result<OutgoingMessage, BusError>) {
        guard message.expectsReply else { return }
        switch outcome {
        case .success(let reply): try? send(reply)
        case .failure(let error): try? send(OutgoingMessage.error(replyingTo: message, error))
        }
    }

    /// What a handler threw, as the error the caller receives.
    private static func busError(_ error: any Error) -> BusError {
        switch error {
        case let error as BusError: error
        case let error as ArgumentError: BusError(error)
        default: BusError(.failed, String(describing: error))
        }
    }

    /// `object` and `children`: what was exported at the call's path when it arrived.
    nonisolated(nonsending) private func handle(
        _ call: MethodCall, _ object: ExportedObject?, _ children: [String]
    ) async throws -> OutgoingMessage {
        let (path, member) = (call.path, call.member)
        if call.interface == introspectable, member == "Introspect", object != nil || !children.isEmpty {
            return try call.reply(introspectionXML(object, children: children)).message
        }
        guard let object else { throw BusError(.unknownObject, "no object at \(path)") }
        if call.interface == properties {
            return try await answerProperties(call, object: object)
        }
        guard let method = object.method(member, in: call.interface) else {
            if let interface = call.interface, object.interfaces[interface] == nil {
                throw BusError(.unknownMethod, "no interface \(interface) at \(path)")
            }
            throw BusError(.unknownMethod, "no method \(member) at \(path)")
        }
        try method.accepts(call)
        switch method.answer {
        case .atOnce(let handler): return try method.checked(handler(call).message)
        case .awaited(let handler): return try method.checked(await handler(call).message)
        }
    }

    nonisolated(nonsending) private func answerProperties(
        _ call: MethodCall, object: ExportedObject
    ) async throws -> OutgoingMessage {
        switch call.member.rawValue {
        case "Get":
            let (interfaceName, propertyName) = try call.arguments(String.self, String.self)
            let interface = try Self.interface(interfaceName, of: object)
            guard let property = interface.properties.first(where: { $0.name.rawValue == propertyName }) else {
                throw BusError(.unknownProperty, "no property \(propertyName) in \(interface.name)")
            }
            return try call.reply(try await property.value()).message
        case "GetAll":
            let interfaceName = try call.arguments(String.self)
            let interface = try Self.interface(interfaceName, of: object)
            var values: [String: Variant] = [:]
            for property in interface.properties { values[property.name.rawValue] = try await property.value() }
            return try call.reply(values).message
        case "Set":
            let (interfaceName, propertyName, _) = try call.arguments(String.self, String.self, Variant.self)
            _ = try Self.interface(interfaceName, of: object)
            throw BusError(.propertyReadOnly, "property \(propertyName) cannot be set")
        default:
            throw BusError(.unknownMethod, "no method \(call.member) in \(properties)")
        }
    }

    private static func interface(_ name: String, of object: ExportedObject) throws -> Interface {
        guard let interfaceName = try? InterfaceName(name), let interface = object.interfaces[interfaceName] else {
            throw BusError(.unknownInterface, "no interface '\(name)' here")
        }
        return interface
    }
}
