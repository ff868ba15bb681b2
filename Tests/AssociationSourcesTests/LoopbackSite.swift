import Foundation
import TestSupport
import Testing

/// A real HTTPS site for one test, on loopback inside a private network and mount namespace:
/// a throwaway CA and certificates made with the `openssl` CLI, `Fixtures/association_site.py`
/// serving them, and the test's hosts file and CA bundle in place of the system's (see
/// `Fixtures/in_namespace.sh`). The verifier runs unchanged inside the namespaces (`nsenter`), as
/// `association-verify`: system resolver, system CA bundle, nothing skipped. `close()` ends it all.
///
/// Host names (all on 127.0.0.1 unless said): valid.example, other.example (its behaviour is set by
/// the test), untrusted.example (a certificate from another CA), misnamed.example (served the
/// certificate of the others, which does not name it), down.example (127.0.0.2, nothing listens);
/// any other name does not resolve.
final class LoopbackSite: Sendable {
    let directory: URL
    private let server: ChildProcess

    /// The cache the verifier writes (the namespace sees the same files): the test reads it in-process.
    var cacheDirectory: URL { directory.appendingPathComponent("cache") }

    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
    static let driver = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        .deletingLastPathComponent().appendingPathComponent("association-verify")
    static let environment = ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8"]

    /// What the site's certificate names: not misnamed.example, which is served it all the same.
    static let siteNames = ["valid.example", "other.example"] + slowNames
    /// Hosts a test may make slow all at once.
    static let slowNames = (1...6).map { "slow\($0).example" }
    static let validFile = #"{"applinks": {"details": [{"appIDs": ["org.example.Shop"], "components": [{"/": "/orders/*"}]}]}}"#
    static let otherAppFile = #"{"applinks": {"details": [{"appIDs": ["org.example.Other"], "components": [{"/": "*"}]}]}}"#

    /// - Parameter behaviours: each host's behaviour (see association_site.py); valid.example is valid.
    init(behaviours: [String: String] = [:]) async throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("waypost-site-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try await Self.makeCertificates(in: directory)
        try Self.write(Self.validFile, to: directory.appendingPathComponent("valid.json"))
        try Self.write(Self.otherAppFile, to: directory.appendingPathComponent("other-app.json"))
        try Self.write(#"{"untrusted.example": ["untrusted.crt", "untrusted.key"]}"#, to: directory.appendingPathComponent("certificates.json"))
        try Self.write(
            """
            127.0.0.1 localhost
            127.0.0.1 valid.example other.example untrusted.example misnamed.example \(Self.slowNames.joined(separator: " "))
            127.0.0.2 down.example

            """, to: directory.appendingPathComponent("hosts"))
        // Nothing listens on port 53 of the namespace's loopback: any name not in hosts fails at once.
        try Self.write("nameserver 127.0.0.1\n", to: directory.appendingPathComponent("resolv.conf"))
        try Self.write("hosts: files dns\n", to: directory.appendingPathComponent("nsswitch.conf"))
        var all = ["valid.example": "valid", "untrusted.example": "valid", "misnamed.example": "valid"]
        all.merge(behaviours) { _, new in new }
        try Self.write(Self.json(all), to: directory.appendingPathComponent("behaviours.json"))

        server = try await ChildProcess.start(
            "/usr/bin/unshare", Self.userNamespace.unshare + ["--mount", "--net", "--propagation", "private", "/bin/sh",
                                 Self.fixtures.appendingPathComponent("in_namespace.sh").path, directory.path],
            environment: Self.environment, errors: directory.appendingPathComponent("site.log"))
        guard (try? await server.nextLine("the loopback site is ready")) == "ready" else {
            let log = log
            close()
            throw TestFailure("the loopback site did not start:\n\(log)")
        }
    }

    /// What the site logged: one line per request, and its errors.
    var log: String { (try? String(contentsOf: directory.appendingPathComponent("site.log"), encoding: .utf8)) ?? "" }

    /// Root makes the namespaces itself; anyone else first makes a user namespace where they are
    /// root (Debian allows it), and enters it again with their own identity kept.
    private static let userNamespace: (unshare: [String], nsenter: [String]) =
        getuid() == 0 ? ([], []) : (["--user", "--map-root-user"], ["--user", "--preserve-credentials"])

    /// Changes what `host` serves from the next request on (written whole, then renamed: the site
    /// reads it on every request).
    func set(_ host: String, to behaviour: String) throws {
        var behaviours = try JSONDecoder().decode(
            [String: String].self, from: Data(contentsOf: directory.appendingPathComponent("behaviours.json")))
        behaviours[host] = behaviour
        try Self.write(Self.json(behaviours), to: directory.appendingPathComponent("behaviours.json"))
    }

    /// Runs `association-verify` for `domain` inside the site's namespaces.
    /// - Returns: its exit status and the record's description it printed.
    func verify(_ domain: String, appID: String = "org.example.Shop", totalTimeout: Double? = nil) async throws
        -> (status: Int32, description: String)
    {
        var arguments = ["--target", "\(server.pid)"] + Self.userNamespace.nsenter + ["--net", "--mount", "--", Self.driver.path,
                         "--cache", cacheDirectory.path, "--app-id", appID]
        if let totalTimeout { arguments += ["--total-timeout", "\(totalTimeout)"] }
        let result = try await runProgram("/usr/bin/nsenter", arguments + [domain], environment: Self.environment)
        guard result.status == 0 || result.status == 1 else {
            throw TestFailure("association-verify \(domain) ended with \(result.status): \(result.errors)\nsite:\n\(log)")
        }
        return (result.status, result.output.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Starts `association-verify` for several domains inside the site's namespaces; it prints
    /// each record as it is stored (read them with `nextLine(_:)`).
    func startVerifying(_ domains: [String], appID: String = "org.example.Shop", totalTimeout: Double) async throws -> ChildProcess {
        let arguments = ["--target", "\(server.pid)"] + Self.userNamespace.nsenter + ["--net", "--mount", "--", Self.driver.path,
                         "--cache", cacheDirectory.path, "--app-id", appID, "--total-timeout", "\(totalTimeout)"]
        return try await ChildProcess.start("/usr/bin/nsenter", arguments + domains, environment: Self.environment)
    }

    func close() {
        server.kill()
        try? FileManager.default.removeItem(at: directory)
    }

    /// The test's CA and, signed by it, one certificate for `siteNames`; another CA and, signed by
    /// it, a certificate for untrusted.example. EC P-256 keys, valid two days.
    private static func makeCertificates(in directory: URL) async throws {
        let config = directory.appendingPathComponent("openssl.cnf")
        try write(
            """
            [req]
            distinguished_name = name
            [name]
            [ca]
            basicConstraints = critical, CA:true
            keyUsage = critical, keyCertSign, cRLSign
            subjectKeyIdentifier = hash

            """, to: config)
        func openssl(_ arguments: [String]) async throws {
            let result = try await runProgram("/usr/bin/openssl", arguments, environment: environment, directory: directory)
            guard result.status == 0 else { throw TestFailure("openssl \(arguments.joined(separator: " ")): \(result.errors)") }
        }
        let key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]
        for authority in ["ca", "other-ca"] {
            try await openssl(["req", "-x509"] + key + ["-keyout", "\(authority).key", "-out", "\(authority).crt", "-days", "2",
                                                         "-subj", "/CN=Waypost test \(authority)", "-config", config.path, "-extensions", "ca"])
        }
        for (name, authority, hosts, serial) in [
            ("server", "ca", siteNames, "1001"), ("untrusted", "other-ca", ["untrusted.example"], "2001"),
        ] {
            try write(
                """
                basicConstraints = critical, CA:false
                keyUsage = critical, digitalSignature
                extendedKeyUsage = serverAuth
                subjectAltName = \(hosts.map { "DNS:\($0)" }.joined(separator: ", "))

                """, to: directory.appendingPathComponent("\(name).ext"))
            try await openssl(["req", "-new"] + key + ["-keyout", "\(name).key", "-out", "\(name).csr",
                                                        "-subj", "/CN=\(hosts[0])", "-config", config.path])
            try await openssl(["x509", "-req", "-in", "\(name).csr", "-CA", "\(authority).crt", "-CAkey", "\(authority).key",
                               "-set_serial", serial, "-days", "2", "-extfile", "\(name).ext", "-out", "\(name).crt"])
        }
    }

    private static func write(_ text: String, to url: URL) throws {
        try text.write(to: url, atomically: true, encoding: .utf8)
    }

    private static func json(_ behaviours: [String: String]) throws -> String {
        String(decoding: try JSONEncoder().encode(behaviours), as: UTF8.self)
    }
}
