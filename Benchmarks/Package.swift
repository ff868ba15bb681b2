// swift-tools-version: 6.1
import PackageDescription

// Benchmarks live in their own package so that `make test` never builds them; run them in release
// mode (`make bench-routing`). Each benchmark is one executable target.
let package = Package(
    name: "WaypostBenchmarks",
    dependencies: [
        .package(name: "Waypost", path: ".."),
    ],
    targets: [
        // Routing decisions and scene changes at 10 to 10,000 open scenes.
        .executableTarget(
            name: "routing-bench",
            dependencies: [.product(name: "ExternalEvents", package: "Waypost")]),
    ],
    swiftLanguageModes: [.v6]
)
