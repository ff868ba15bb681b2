import ArgumentParser
import AssociationSources
import DBus
import Desktop
import Dispatch
import ExternalEvents
import NativeMessaging
import Synchronization
import SystemPackage
import WaypostContract

/// `waypost browser-host`: the native-messaging host of Waypost's browser extension. The browser
/// starts it (through the host manifest `waypost install --browser` writes) and speaks the
/// length-prefixed JSON protocol on its stdin and stdout; every answer comes from the dispatcher.
/// Hidden from the help: people never run it.
struct BrowserHost: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "browser-host",
        abstract: "The native-messaging host of Waypost's browser extension (the browser starts it).",
        shouldDisplay: false)

    /// Chromium and Chrome pass the extension's origin; Firefox the manifest's path and the add-on id.
    @ArgumentParser.Argument(parsing: .allUnrecognized)
    var arguments: [String] = []

    /// How long a click waits for the dispatcher before it proceeds in the browser.
    static let clickWait: Duration = .milliseconds(300)
    /// How long the owned domains may take (not on a click's path: the daemon may be starting).
    static let listWait: Duration = .seconds(10)

    func run() async throws {
        do { _ = try BrowserCaller(arguments: arguments) } catch {
            printError("waypost browser-host: \(error)")
            throw ExitCode(77)  // EX_NOPERM
        }
        let connection: Connection
        let kept: KeptInBrowser
        do {
            connection = try await Connection.session()
            kept = KeptInBrowser(AssociationDirectories(try XDGDirectories()))
        } catch {
            printError("waypost browser-host: \(error)")
            throw ExitCode(69)
        }
        let host = BrowserHostSession(connection: connection, kept: kept)
        await host.watchChanges()
        let input = StandardInput()
        let status = await host.serve(input.chunks, consumed: input.consumed)
        connection.close()
        if status != 0 { throw ExitCode(status) }
    }
}

/// One browser's conversation with the host: requests in, replies and pushes out, each request
/// answered on a task of its own (a slow `open` does not hold up the next click), at most
/// `maximumInFlight` at once: past that, the host reads no more until one is answered, and the
/// browser's pipe holds the rest.
final class BrowserHostSession: Sendable {
    let connection: Connection
    let kept: KeptInBrowser
    private let output = StandardOutput()
    /// Requests answered at once; a page's clicks come a few at a time, a flood waits its turn.
    static let maximumInFlight = 32
    private let slots = Slots(maximumInFlight)
    /// The owned domains last heard from the dispatcher (pushed again with `kept` when either changes).
    private let domains = Mutex<[String]>([])
    private let catalog = Mutex<ApplicationCatalog?>(nil)

    init(connection: Connection, kept: KeptInBrowser) {
        self.connection = connection
        self.kept = kept
    }

    /// Reads messages until the browser hangs up (0) or sends one over the limit (65, after
    /// answering `message-too-large`: the stream cannot be followed past it).
    /// - Parameter consumed: called once each chunk is taken apart, so that the next is read.
    func serve(_ input: AsyncStream<[UInt8]>, consumed: @Sendable () -> Void = {}) async -> Int32 {
        var reader = FrameReader()
        for await chunk in input {
            defer { consumed() }
            reader.append(chunk)
            while true {
                let message: [UInt8]?
                do { message = try reader.next() } catch {
                    printError("waypost browser-host: \(error)")
                    output.send(HostMessage(id: nil, refusing: error))
                    return 65  // EX_DATAERR
                }
                guard let message else { break }
                do {
                    let request = try BrowserRequest(json: message)
                    await slots.take()
                    Task {
                        defer { self.slots.give() }
                        self.output.send(await self.answer(request))
                    }
                } catch {
                    output.send(HostMessage(id: nil, refusing: error))
                }
            }
        }
        return 0
    }

    func answer(_ request: BrowserRequest) async -> HostMessage {
        switch request.kind {
        case .ownedDomains:
            let current = await askOwnedDomains() ?? domains.withLock { $0 }
            return ownedDomainsMessage(id: request.id, current)
        case .owner(let url):
            var reply = HostMessage(id: request.id, type: "owner")
            reply.url = url
            await describeOwner(of: url, in: &reply)
            return reply
        case .open(let url):
            var reply = HostMessage(id: request.id, type: "open")
            reply.url = url
            await describeOwner(of: url, in: &reply)
            reply.opened = false
            guard reply.owned == true else { return reply }
            do {
                // The daemon carries out its plan for the link (the one Explain showed, unless the
                // desktop changed meanwhile) and tells the opener from the bus: this host, the
                // browser's child. The browser is no destination: when no app takes the link, Open
                // fails and the tab navigates itself, so the page opens once, where it was clicked.
                var platform = [String: Variant]()
                platform.insert(Contract.PlatformData.Keys.showsPages, true)
                let answer = try await connection.call(
                    destination: Contract.busName, path: Contract.objectPath, interface: Contract.Dispatcher1.interface,
                    member: Contract.Dispatcher1.open.name, url, platform, timeout: BusClient.routingTimeout)
                let outcome = try Contract.RoutingOutcome(try answer.decode([String: Variant].self))
                // Opened means an app has it; a daemon that still gave it to a browser did not.
                reply.opened = outcome.rule != .browser
                if reply.opened == false { reply.reason = "the dispatcher gave it to the browser \(outcome.appID ?? "")" }
            } catch {
                reply.reason = BusClient.message(error)
            }
            return reply
        case .keepInBrowser(let domain), .undoKeep(let domain):
            let keep = if case .keepInBrowser = request.kind { true } else { false }
            var reply = HostMessage(id: request.id, type: keep ? "keep-in-browser" : "undo-keep")
            reply.domain = domain
            do {
                let name: AssociatedDomain
                do { name = try AssociatedDomain(domain) } catch {
                    throw NativeMessagingError.invalidValue(key: "domain", value: domain, reason: error.problem)
                }
                do { _ = keep ? try kept.keep(name) : try kept.undo(name) } catch {
                    reply.error = "rule-file"
                    reply.message = error.description
                }
            } catch let error as NativeMessagingError {
                return HostMessage(id: request.id, refusing: error)
            } catch {}
            // Asked after writing: the daemon reads the rule before it answers, so the choice holds
            // for the next link, whichever opener sends it, by the time the extension hears of it.
            _ = await askOwnedDomains()
            reply.kept = kept.domains
            pushOwnedDomains()
            return reply
        }
    }

    /// Fills `owned`, `app`, `name` (and `reason` when not owned) from the dispatcher's `Explain` (the
    /// first destination of its plan: owned unless that is the browser),
    /// waiting `clickWait` at most: a silent daemon means "not owned", and the click proceeds.
    private func describeOwner(of url: String, in reply: inout HostMessage) async {
        reply.owned = false
        let outcome: Contract.RoutingOutcome
        do {
            let answer = try await connection.call(
                destination: Contract.busName, path: Contract.objectPath, interface: Contract.Dispatcher1.interface,
                member: Contract.Dispatcher1.explain.name, url, timeout: BrowserHost.clickWait)
            outcome = try Contract.RoutingOutcome(try answer.decode([String: Variant].self))
        } catch {
            reply.reason = "the dispatcher did not answer: \(BusClient.message(error))"
            return
        }
        guard outcome.rule != .browser, let app = outcome.appID else {
            reply.reason = outcome.reason
            return
        }
        reply.owned = true
        reply.app = app
        reply.name = appName(app)
    }

    /// The app's name from its desktop entry (GIO, loaded on the first owned link).
    private func appName(_ id: String) -> String {
        catalog.withLock { catalog in
            if catalog == nil { catalog = try? ApplicationCatalog() }
            return (try? catalog?.entry(id: id))?.name ?? id
        }
    }

    /// The dispatcher's `OwnedDomains`, remembered; nil when it did not answer.
    private func askOwnedDomains() async -> [String]? {
        do {
            let answer = try await connection.call(
                destination: Contract.busName, path: Contract.objectPath, interface: Contract.Dispatcher1.interface,
                member: Contract.Dispatcher1.ownedDomains.name, timeout: BrowserHost.listWait)
            let (list) = try answer.decode([String].self)
            domains.withLock { $0 = list }
            return list
        } catch {
            printError("waypost browser-host: the dispatcher did not list the owned domains: \(BusClient.message(error))")
            return nil
        }
    }

    private func ownedDomainsMessage(id: Int?, _ list: [String]) -> HostMessage {
        var message = HostMessage(id: id, type: "owned-domains")
        message.domains = list
        message.kept = kept.domains
        return message
    }

    /// Sends the extension the owned domains and the kept ones as they stand.
    func pushOwnedDomains() {
        output.send(ownedDomainsMessage(id: nil, domains.withLock { $0 }))
    }

    /// Pushes the lists again when the dispatcher says its domains changed, when a dispatcher
    /// (re)starts, and when the user's rules directory changes (`waypost links keep-in-browser`).
    func watchChanges() async {
        let changed = MatchRule(
            sender: Contract.busName, path: Contract.objectPath, interface: Contract.Dispatcher1.interface,
            member: Contract.Dispatcher1.ownedDomainsChanged.name)
        if let signals = try? await connection.signals(matching: changed) {
            Task {
                for try await signal in signals {
                    guard let (list) = try? signal.decode([String].self) else { continue }
                    self.domains.withLock { $0 = list }
                    self.pushOwnedDomains()
                }
            }
        }
        if let owners = try? await connection.nameOwnerChanges(for: Contract.busName) {
            Task {
                for try await change in owners where change.newOwner != nil {
                    if await self.askOwnedDomains() != nil { self.pushOwnedDomains() }
                }
            }
        }
        // Made first: GIO polls a directory that does not exist every 4 s.
        try? Files.makeDirectories(kept.directory)
        // A directory GIO cannot monitor is compared every few seconds instead: changes still arrive.
        _ = try? await DirectoryChanges.watch([kept.directory]) { _ in self.pushOwnedDomains() }
    }
}
