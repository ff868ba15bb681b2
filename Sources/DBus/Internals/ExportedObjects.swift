import Synchronization

/// The objects a connection serves, by path.
final class ExportedObjects: Sendable {
    private let objects = Mutex<[ObjectPath: ExportedObject]>([:])

    /// Adds `object` at `path`; false when something is exported there already.
    func add(_ object: ExportedObject, at path: ObjectPath) -> Bool {
        objects.withLock { objects in
            guard objects[path] == nil else { return false }
            objects[path] = object
            return true
        }
    }

    func remove(_ path: ObjectPath) {
        _ = objects.withLock { $0.removeValue(forKey: path) }
    }

    /// What is exported at `path`, and, when `listingChildren`, the names of the next path elements
    /// below it that lead to exported objects (for `Introspect`).
    func lookUp(_ path: ObjectPath, listingChildren: Bool) -> (object: ExportedObject?, children: [String]) {
        objects.withLock { objects in
            (objects[path], listingChildren ? Self.children(of: path, in: objects) : [])
        }
    }

    /// Forgets every object (the connection ended); returned so that they are released outside the lock.
    func removeAll() -> [ObjectPath: ExportedObject] {
        objects.withLock { objects in
            defer { objects = [:] }
            return objects
        }
    }

    private static func children(of path: ObjectPath, in objects: [ObjectPath: ExportedObject]) -> [String] {
        let prefix = path.rawValue == "/" ? "/" : path.rawValue + "/"
        var names: Set<String> = []
        for exported in objects.keys where exported.rawValue.hasPrefix(prefix) && exported != path {
            if let first = exported.rawValue.dropFirst(prefix.count).split(separator: "/").first {
                names.insert(String(first))
            }
        }
        return names.sorted()
    }
}
