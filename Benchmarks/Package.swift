// swift-tools-version: 6.2
import PackageDescription

// Benchmarks live in their own package so that `make test` never builds them; run them in release
// mode (`make bench`, or `make bench-routing` / `make bench-bus`). Each benchmark is one executable target.
let package = Package(
    name: "WaypostBenchmarks",
    dependencies: [
        .package(name: "Waypost", path: ".."),
    ],
    targets: [
        // A private bus, child processes, the C yardsticks and statistics, shared by the benchmarks.
        .target(name: "BenchSupport", dependencies: [.product(name: "DBus", package: "Waypost")]),
        // Routing decisions and scene changes at 10 to 10,000 open scenes.
        .executableTarget(
            name: "routing-bench",
            dependencies: [.product(name: "ExternalEvents", package: "Waypost"), "CMallocInfo"]),
        // glibc's mallinfo2, which the Glibc module map leaves out (bytes in use, for memory figures).
        .systemLibrary(name: "CMallocInfo"),
        // Bus round trips through the DBus module beside libdbus in C, on a private bus.
        .executableTarget(
            name: "bus-bench",
            dependencies: [.product(name: "DBus", package: "Waypost"), "CMallocInfo", "BenchSupport"]),
        // The dispatcher end to end: Open round trips, throughput, memory, and `waypost open` as a process.
        .executableTarget(
            name: "dispatch-bench",
            dependencies: [
                .product(name: "DBus", package: "Waypost"), .product(name: "WaypostContract", package: "Waypost"),
                "BenchSupport",
            ]),
        // The universal-link decision at 1,000 domains × 50 components, and loading their files.
        .executableTarget(
            name: "association-bench",
            dependencies: [.product(name: "Associations", package: "Waypost"), .product(name: "ExternalEvents", package: "Waypost")]),
        // User activities: a publish beside AddScene, the desktop's search over 100,000, the store's cost.
        .executableTarget(
            name: "activity-bench",
            dependencies: [
                .product(name: "DBus", package: "Waypost"), .product(name: "WaypostContract", package: "Waypost"),
                "BenchSupport",
            ]),
        // The opener of each event: the walk up a caller's ancestors, and what waiting for it adds to an Open.
        .executableTarget(
            name: "opener-bench",
            dependencies: [
                .product(name: "DBus", package: "Waypost"), .product(name: "Desktop", package: "Waypost"),
                .product(name: "WaypostContract", package: "Waypost"), "BenchSupport",
            ]),
        // A notification click → the app's scene, beside ContinueActivity and `waypost continue` of the same target.
        .executableTarget(
            name: "notify-bench",
            dependencies: [
                .product(name: "DBus", package: "Waypost"), .product(name: "WaypostContract", package: "Waypost"),
                "BenchSupport",
            ]),
        // gio open → Waypost → a running app, beside gio open straight to it and to an Exec= entry.
        .executableTarget(
            name: "open-bench",
            dependencies: [.product(name: "DBus", package: "Waypost"), .product(name: "WaypostContract", package: "Waypost")]),
    ],
    swiftLanguageModes: [.v6]
)
