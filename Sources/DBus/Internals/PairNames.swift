internal import CDBus
import Synchronization

/// The well-known names the two sides of a pair own: what a bus would keep for them, as far as names
/// go. Both sides share it (a pair lives in one process). There is no queue: a name another side
/// owns is `exists` unless that side allowed replacement and the request asks for it.
///
/// Changes of owner are told to both sides' subscriptions as `NameOwnerChanged` from
/// `org.freedesktop.DBus`, on the thread that made them, before the request returns: whatever the
/// new owner sends next is told after.
final class PairNames: Sendable {
    private struct Owner {
        let name: BusName
        let allowsReplacement: Bool
    }

    private let owners = Mutex<[BusName: Owner]>([:])
    /// Each side's subscriptions by its unique name, attached once both sides exist.
    private let sides = Mutex<[BusName: SignalSubscriptions]>([:])

    func attach(_ subscriptions: SignalSubscriptions, of side: BusName) {
        sides.withLock { $0[side] = subscriptions }
    }

    /// The unique name owning the well-known `name`, if either side does.
    func owner(of name: BusName) -> BusName? {
        owners.withLock { $0[name]?.name }
    }

    func request(_ name: BusName, by side: BusName, flags: RequestNameFlags) -> RequestNameReply {
        let (reply, previous): (RequestNameReply, BusName?) = owners.withLock { owners in
            let entry = Owner(name: side, allowsReplacement: flags.contains(.allowReplacement))
            guard let current = owners[name] else {
                owners[name] = entry
                return (.primaryOwner, nil)
            }
            if current.name == side {
                owners[name] = entry
                return (.alreadyOwner, nil)
            }
            guard current.allowsReplacement, flags.contains(.replaceExisting) else { return (.exists, nil) }
            owners[name] = entry
            return (.primaryOwner, current.name)
        }
        if reply == .primaryOwner { tell(name, from: previous, to: side) }
        return reply
    }

    func release(_ name: BusName, by side: BusName) -> ReleaseNameReply {
        let reply: ReleaseNameReply = owners.withLock { owners in
            guard let current = owners[name] else { return .nonExistent }
            guard current.name == side else { return .notOwner }
            owners[name] = nil
            return .released
        }
        if reply == .released { tell(name, from: side, to: nil) }
        return reply
    }

    /// `side` has gone: its names go with it, and `remaining` (the other side's subscriptions, as
    /// they end) hears it as a bus would say it: each name it owned, then its own.
    func left(_ side: BusName, telling remaining: SignalSubscriptions) {
        let names = owners.withLock { owners in
            let names = owners.filter { $0.value.name == side }.keys.sorted()
            for name in names { owners[name] = nil }
            return names
        }
        for name in names + [side] {
            remaining.deliver(Self.nameOwnerChanged(name, from: side, to: nil))
        }
    }

    private func tell(_ name: BusName, from old: BusName?, to new: BusName?) {
        let message = Self.nameOwnerChanged(name, from: old, to: new)
        for subscriptions in sides.withLock({ Array($0.values) }) { subscriptions.deliver(message) }
    }

    /// `NameOwnerChanged` as the bus sends it: from `org.freedesktop.DBus` (`dbus_message_set_sender`
    /// on a message not yet sent), an empty string for no owner.
    private static func nameOwnerChanged(_ name: BusName, from old: BusName?, to new: BusName?) -> Message {
        guard let outgoing = try? OutgoingMessage.signal(
            path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus", member: "NameOwnerChanged", destination: nil,
            name.rawValue, old?.rawValue ?? "", new?.rawValue ?? "")
        else { preconditionFailure("three valid names always make a NameOwnerChanged") }
        _ = dbus_message_set_sender(outgoing.message.reference.pointer, BusName.bus.rawValue)
        return outgoing.message
    }
}
