// swift-tools-version: 6.2
import PackageDescription

// libFuzzer targets, a package of their own so that the main build never sees -sanitize=fuzzer.
// `make fuzz` builds them with `-sanitize=fuzzer,address -enable-testing` (the latter for
// `@testable import` of the internal parsers) and runs each for FUZZ_SECONDS on Corpus/<name>.
let package = Package(
    name: "WaypostFuzz",
    dependencies: [.package(name: "Waypost", path: "..")],
    targets: [
        .target(name: "FuzzerDriver"),
        .executableTarget(name: "fuzz-uri-grammar", dependencies: ["FuzzerDriver", .product(name: "Dispatcher", package: "Waypost"), .product(name: "WaypostContract", package: "Waypost")]),
        .executableTarget(name: "fuzz-conditions", dependencies: ["FuzzerDriver", .product(name: "ExternalEvents", package: "Waypost")]),
        .executableTarget(name: "fuzz-scenario", dependencies: ["FuzzerDriver", .product(name: "ExternalEvents", package: "Waypost")]),
        .executableTarget(name: "fuzz-associations", dependencies: ["FuzzerDriver", .product(name: "Associations", package: "Waypost")]),
        .executableTarget(name: "fuzz-handoff-payload", dependencies: ["FuzzerDriver", .product(name: "Handoff", package: "Waypost")]),
        .executableTarget(name: "fuzz-message-reader", dependencies: ["FuzzerDriver", .product(name: "DBus", package: "Waypost")]),
    ],
    swiftLanguageModes: [.v6]
)
