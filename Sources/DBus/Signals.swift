import Synchronization

/// Which messages a subscription wants, in the bus's match-rule terms: signals (`type='signal'`),
/// or for a monitor (`Connection.monitor`) another kind.
///
/// The bus filters by the rule; the connection matches again locally to hand each signal only to the
/// subscriptions it fits. A well-known `sender` is resolved by the bus only, so locally it is not
/// compared (the bus sends the signal with the owner's unique name).
public struct MatchRule: Sendable, Hashable, CustomStringConvertible {
    /// `.signal` for subscriptions; a monitor may watch method calls and replies too.
    public var kind: Message.Kind
    public var sender: BusName?
    public var path: ObjectPath?
    public var interface: InterfaceName?
    public var member: MemberName?
    /// String arguments that must be equal, by zero-based position (`arg0='org.example.App'`).
    public var arguments: [Int: String]

    public init(
        kind: Message.Kind = .signal, sender: BusName? = nil, path: ObjectPath? = nil, interface: InterfaceName? = nil,
        member: MemberName? = nil, arguments: [Int: String] = [:]
    ) {
        self.kind = kind
        self.sender = sender
        self.path = path
        self.interface = interface
        self.member = member
        self.arguments = arguments
    }

    /// The rule as the bus's `AddMatch` takes it.
    public var description: String {
        let type = switch kind {
        case .signal: "signal"
        case .methodCall: "method_call"
        case .methodReturn: "method_return"
        case .error: "error"
        }
        var parts = ["type='\(type)'"]
        if let sender { parts.append("sender='\(sender)'") }
        if let path { parts.append("path='\(path)'") }
        if let interface { parts.append("interface='\(interface)'") }
        if let member { parts.append("member='\(member)'") }
        for (position, value) in arguments.sorted(by: { $0.key < $1.key }) {
            // Inside quotes nothing is special but the quote itself: close, escaped quote, reopen.
            parts.append("arg\(position)='\(value.replacingOccurrences(of: "'", with: "'\\''"))'")
        }
        return parts.joined(separator: ",")
    }

    func matches(_ message: Message) -> Bool {
        if message.kind != kind { return false }
        if let sender, sender.isUnique || sender == .bus, message.sender != sender { return false }
        if let path, message.path != path { return false }
        if let interface, message.interface != interface { return false }
        if let member, message.member != member { return false }
        if arguments.isEmpty { return true }
        var reader = message.reader()
        var position = 0
        for (wanted, value) in arguments.sorted(by: { $0.key < $1.key }) {
            while position < wanted {
                guard !reader.isAtEnd, (try? Variant.readContent(from: &reader)) != nil else { return false }
                position += 1
            }
            guard (try? reader.read(String.self)) == value else { return false }
            position += 1
        }
        return true
    }
}

extension String {
    fileprivate func replacingOccurrences(of target: Character, with replacement: String) -> String {
        var result = ""
        for character in self { if character == target { result += replacement } else { result.append(character) } }
        return result
    }
}

/// A change of a bus name's owner, from the bus's `NameOwnerChanged` signal.
public struct NameOwnerChange: Sendable, Hashable {
    public var name: BusName
    /// Nil when the name had no owner.
    public var oldOwner: BusName?
    /// Nil when the name now has no owner.
    public var newOwner: BusName?

    public init(name: BusName, oldOwner: BusName?, newOwner: BusName?) {
        self.name = name
        self.oldOwner = oldOwner
        self.newOwner = newOwner
    }
}

extension Connection {
    /// Subscribes to the signals `rule` matches.
    ///
    /// When this returns the bus has accepted the rule, so signals emitted from then on arrive.
    /// Ending the stream (breaking out of the loop, cancelling its task) removes the rule from the bus.
    /// Signals are buffered without bound until read. The stream throws `Disconnected` if the bus goes
    /// away and finishes quietly after `close()`. On a peer connection the peer's every signal
    /// arrives and the rule is matched here alone (`sender` against the peer's name).
    /// - Throws: `BusError` when the bus rejects the rule or the connection is closed.
    public func signals(matching rule: MatchRule) async throws -> AsyncThrowingStream<Message, any Error> {
        try await subscribe(rule) { $0 }
    }

    /// The changes of `name`'s owner, as they happen (appear, vanish, change hands); of every name
    /// on the bus when `name` is nil (each connection that comes or goes, among them). On a peer
    /// connection, the names either side requests and releases, and the peer leaving (its names,
    /// then its own), after which the stream throws `Disconnected`, as when a bus goes away.
    /// - Throws: `BusError` when the connection is closed.
    public func nameOwnerChanges(for name: BusName?) async throws -> AsyncThrowingStream<NameOwnerChange, any Error> {
        let rule = MatchRule(
            sender: .bus, path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: "NameOwnerChanged", arguments: name.map { [0: $0.rawValue] } ?? [:])
        return try await subscribe(rule) { message in
            guard let (name, old, new) = try? message.decode(String.self, String.self, String.self),
                let changed = try? BusName(name)
            else { return nil }
            return NameOwnerChange(
                name: changed, oldOwner: old.isEmpty ? nil : try? BusName(old),
                newOwner: new.isEmpty ? nil : try? BusName(new))
        }
    }

    /// Registers a local subscription, then the rule with the bus; the stream's end undoes both.
    /// On a peer connection there is no bus: the subscription is local alone.
    private func subscribe<Element: Sendable>(
        _ rule: MatchRule, _ transform: @escaping @Sendable (Message) -> Element?
    ) async throws -> AsyncThrowingStream<Element, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: Element.self)
        let subscription = Subscription(
            rule: rule,
            deliver: { message in if let element = transform(message) { continuation.yield(element) } },
            finish: { error in continuation.finish(throwing: error) })
        guard let id = core.subscriptions.add(subscription) else { throw BusError(.disconnected, "the connection is closed") }
        let core = self.core
        if core.peer != nil {
            continuation.onTermination = { _ in _ = core.subscriptions.remove(id) }
            return stream
        }
        continuation.onTermination = { _ in
            guard core.subscriptions.remove(id) != nil else { return }  // the connection closed: the bus forgot the rule itself
            guard let message = try? OutgoingMessage.methodCall(
                destination: .bus, path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                member: "RemoveMatch", noReply: true, rule.description)
            else { return }
            try? core.send(message)
        }
        do {
            _ = try await callBus("AddMatch", rule.description)
        } catch {
            core.subscriptions.remove(id)
            continuation.finish(throwing: error)
            throw error
        }
        return stream
    }
}
