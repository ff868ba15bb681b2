// swift-tools-version: 6.2
import PackageDescription

/// Strict settings for every Swift target: existential `any` spelled out, imports visible only where
/// they are written, so that C modules imported `internal` cannot leak into a public signature.
let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "Waypost",
    products: [
        .library(name: "ExternalEvents", targets: ["ExternalEvents"]),
        .library(name: "DBus", targets: ["DBus"]),
        .library(name: "Desktop", targets: ["Desktop"]),
        .library(name: "WaypostContract", targets: ["WaypostContract"]),
        .library(name: "WaypostKit", targets: ["WaypostKit"]),
        .library(name: "Associations", targets: ["Associations"]),
        // For the fuzzers in Fuzz/ (a package of their own), which reach the URI grammar through it.
        .library(name: "Dispatcher", targets: ["Dispatcher"]),
        .library(name: "Handoff", targets: ["Handoff"]),
        .executable(name: "waypost", targets: ["waypost"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        // Tests only: every program a test starts (close-on-exec pipes, exits seen on a thread of its own).
        .package(url: "https://github.com/swiftlang/swift-subprocess", from: "1.0.2"),
        // File descriptors without pointers (the browser host's stdin and stdout; EINTR retried).
        .package(url: "https://github.com/apple/swift-system", from: "1.4.0"),
    ],
    targets: [
        // The pure routing core: events, condition sets, declarations, scenes, the router. No I/O.
        .target(
            name: "ExternalEvents",
            dependencies: [.product(name: "HeapModule", package: "swift-collections")],
            swiftSettings: strict,
            // Square roots (the index's merge threshold) come from libm, which Foundation used to bring.
            linkerSettings: [.linkedLibrary("m")]),

        // C libraries, reached through system-library targets only.
        // GIO's headers and, in debug builds, its libraries: `make release` gives it a pkg-config file
        // that lists none, since Desktop opens GIO itself (Desktop/Internals/GIOLibrary.swift).
        .systemLibrary(
            name: "CGIO", pkgConfig: "gio-unix-2.0",
            providers: [.apt(["libglib2.0-dev"])]),
        .systemLibrary(
            name: "CDBus", pkgConfig: "dbus-1",
            providers: [.apt(["libdbus-1-dev"])]),
        .systemLibrary(name: "CMalloc"),
        // libwayland-client's headers only (libwayland-dev): Desktop opens the library itself, when a
        // token is needed for an action on the desktop's own surface.
        .systemLibrary(name: "CWayland"),
        .systemLibrary(name: "CLinux"),
        // The system's libsqlite3, for the activity store (SQLITE_TRANSIENT binds spelled in C).
        .systemLibrary(name: "CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        // libcurl's headers only (libcurl4-openssl-dev): no pkgConfig, whose -lcurl would make every
        // start of `waypost` load libcurl and its 30-odd libraries; it is dlopen'd on the first fetch.
        .systemLibrary(name: "CCurl"),
        // GTK 4's functions for the chooser window, declared by hand: no headers, no pkg-config, no
        // link; Chooser opens libgtk-4.so.1 with dlopen when the window is asked for.
        .systemLibrary(name: "CGtkRuntime"),

        // The Swift face of libdbus-1; every unsafe pointer stays inside it.
        .target(name: "DBus", dependencies: ["CDBus"], swiftSettings: strict),

        // The desktop over GIO (opened with dlopen): desktop entries and who handles what, launching,
        // content types, mimeapps.list, desktop actions, processes and their programs, compositor tokens.
        .target(name: "Desktop", dependencies: ["CGIO", "CLinux", "CWayland", "ExternalEvents"], swiftSettings: strict),

        // The D-Bus contract of dbus/*.xml as Swift, once: names, members, errors, a{sv} keys and codecs
        // (to and from the routing core's declarations, modifiers and activities).
        .target(name: "WaypostContract", dependencies: ["DBus", "ExternalEvents"], swiftSettings: strict),
        // Writes WaypostContract's Generated/ from dbus/*.xml (`make contract`; `make check-contract`, which
        // `make test` runs first, fails when they disagree). Linked into nothing, so it may use
        // FoundationXML's parser (libxml2), which no module of the binary may.
        .executableTarget(name: "contract-generator", swiftSettings: strict),

        // The daemon's logic: registry, the planner's plans carried out (delivery, launches, fallbacks),
        // web-link ownership kept current, activities, notifications, shortcuts and dock menus, Handoff.
        .target(
            name: "Dispatcher",
            dependencies: [
                "ExternalEvents", "DBus", "Desktop", "WaypostContract", "Associations", "AssociationSources", "ActivityStore", "Planning", "Handoff",
                "Browsers",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict),

        // Saved user activities: SQLite through its C API (C only in ActivityStore/Internals), searched
        // with FTS5. Only the daemon uses it.
        .target(name: "ActivityStore", dependencies: ["CSQLite"], swiftSettings: strict),

        // The browsers' own files: which installed entry is which browser, its profiles (Chromium's
        // Local State, Firefox's profiles.ini) and the arguments that open a profile or a private window.
        .target(name: "Browsers", dependencies: ["Desktop", "Planning"], swiftSettings: strict),

        // The client library participating apps use: declarations, scenes, handlers, kept in step
        // with the dispatcher. It speaks the contract in dbus/ and never imports the daemon.
        .target(name: "WaypostKit", dependencies: ["ExternalEvents", "DBus", "WaypostContract"], swiftSettings: strict),

        // Universal links' pure core: association files (Apple's applinks format), domain claims, and who
        // owns an https link. No I/O: files arrive as bytes, claims as text.
        .target(name: "Associations", swiftSettings: strict),

        // Where an event goes, decided once: a plan over a snapshot of the desktop, the registered apps
        // and link ownership. Pure: no bus, GIO, /proc or clock. `Open` carries plans out, `Explain` shows them.
        .target(name: "Planning", dependencies: ["ExternalEvents", "Associations"], swiftSettings: strict),

        // `waypost choose`: the window that asks which app opens a link, on GTK 4 opened at run time
        // (C only in Chooser/Internals). Only the executable uses it; the daemon runs it as a program.
        .target(name: "Chooser", dependencies: ["CGtkRuntime", "Planning"], swiftSettings: strict),

        // Handoff between devices, pure: the payload a shared URL carries, and the offers a desktop holds.
        .target(name: "Handoff", dependencies: ["ExternalEvents"], swiftSettings: strict),

        // Where association files come from: installed and user files, and the live domain's file
        // fetched through libcurl (opened on the first fetch), verified and cached.
        .target(name: "AssociationSources", dependencies: ["CCurl", "Planning"], swiftSettings: strict),

        // The browsers' native-messaging protocol as the browser extension's host speaks it: framing,
        // the messages' schema, the calling extension. Pure: bytes in, bytes out.
        .target(name: "NativeMessaging", swiftSettings: strict),

        // Desktop integration: the handler's files, handing schemes over in mimeapps.list, the search
        // providers' and the browser extension's files, doctor.
        .target(name: "Installation", dependencies: ["Desktop", "NativeMessaging"], swiftSettings: strict),

        // One executable: argument parsing and wiring only.
        .executableTarget(
            name: "waypost",
            dependencies: [
                "ExternalEvents", "Desktop", "DBus", "Dispatcher", "Installation", "CMalloc", "WaypostContract",
                "Associations", "AssociationSources", "ActivityStore", "NativeMessaging", "Handoff", "Chooser", "Browsers", "Planning",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: strict),

        // Sample apps (Examples/): Apple's examples as terminal programs that take part in Waypost.
        .target(name: "SampleSupport", dependencies: ["WaypostKit"], path: "Examples/SampleSupport", swiftSettings: strict),
        .executableTarget(
            name: "waypost-contacts", dependencies: ["WaypostKit", "SampleSupport"], path: "Examples/Contacts",
            swiftSettings: strict),
        .executableTarget(
            name: "waypost-photos", dependencies: ["WaypostKit", "SampleSupport"], path: "Examples/Photos",
            swiftSettings: strict),
        .executableTarget(
            name: "waypost-notes", dependencies: ["WaypostKit", "SampleSupport"], path: "Examples/Notes",
            swiftSettings: strict),
        .executableTarget(
            name: "waypost-player", dependencies: ["WaypostKit", "SampleSupport"], path: "Examples/Player",
            swiftSettings: strict),
        .executableTarget(
            name: "waypost-icecream", dependencies: ["WaypostKit", "SampleSupport"], path: "Examples/IceCream",
            swiftSettings: strict),

        // The same samples with real windows (GTK 4): GtkSupport holds every C call and pointer.
        .systemLibrary(name: "CGtk", path: "Examples/CGtk", pkgConfig: "gtk4", providers: [.apt(["libgtk-4-dev"])]),
        .target(name: "GtkSupport", dependencies: ["CGtk"], path: "Examples/GtkSupport", swiftSettings: strict),
        .executableTarget(
            name: "waypost-contacts-gtk", dependencies: ["WaypostKit", "SampleSupport", "GtkSupport"], path: "Examples/ContactsGtk",
            swiftSettings: strict),
        .executableTarget(
            name: "waypost-icecream-gtk", dependencies: ["WaypostKit", "SampleSupport", "GtkSupport"], path: "Examples/IceCreamGtk",
            swiftSettings: strict),

        // What the integration test targets share (not a test target itself).
        .target(
            name: "TestSupport", dependencies: ["CLinux", "DBus", "WaypostContract", .product(name: "Subprocess", package: "swift-subprocess")],
            path: "Tests/TestSupport", swiftSettings: strict),

        .testTarget(name: "ExternalEventsTests", dependencies: ["ExternalEvents"], swiftSettings: strict),
        .testTarget(name: "AssociationsTests", dependencies: ["Associations"], swiftSettings: strict),
        .testTarget(name: "PlanningTests", dependencies: ["Planning", "Associations", "ExternalEvents"], swiftSettings: strict),
        .testTarget(name: "NativeMessagingTests", dependencies: ["NativeMessaging"], swiftSettings: strict),
        // The generated contract against its generator and dbus/; no bus.
        .testTarget(
            name: "WaypostContractTests", dependencies: ["WaypostContract", "DBus", "ExternalEvents", "TestSupport", "contract-generator"],
            swiftSettings: strict),
        .testTarget(name: "ActivityStoreTests", dependencies: ["ActivityStore", "TestSupport"], swiftSettings: strict),
        // Browser profiles: the parsers, and real Chromium and Firefox under Xvfb taking a link in a profile.
        .testTarget(
            name: "BrowsersTests", dependencies: ["Browsers", "Desktop", "Planning", "Dispatcher", "TestSupport"],
            exclude: ["Fixtures"], swiftSettings: strict),
        .testTarget(name: "DesktopTests", dependencies: ["Desktop", "ExternalEvents", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "WaypostCommandTests", dependencies: ["waypost", "TestSupport"], swiftSettings: strict),
        .testTarget(
            name: "DispatcherTests", dependencies: ["DBus", "Dispatcher", "ExternalEvents", "Planning", "Associations", "AssociationSources", "Browsers", "TestSupport", "WaypostContract", "waypost"],
            swiftSettings: strict),
        .testTarget(
            name: "WaypostKitTests",
            dependencies: ["WaypostKit", "DBus", "TestSupport", "waypost", "waypost-contacts", "waypost-photos", "waypost-notes", "waypost-player",
                           "waypost-icecream"],
            swiftSettings: strict),
        .testTarget(
            name: "DesktopIntegrationTests", dependencies: ["AssociationSources", "DBus", "Installation", "TestSupport", "waypost"],
            exclude: ["Fixtures"],
            swiftSettings: strict),
        // The GTK samples' windows under Xvfb and openbox.
        .testTarget(
            name: "WindowTests", dependencies: ["TestSupport", "waypost", "Chooser", "waypost-contacts-gtk", "waypost-icecream-gtk"],
            exclude: ["Fixtures"], swiftSettings: strict),
        // The GTK samples on real Wayland compositors: GNOME Shell (mutter) and KWin, headless.
        .testTarget(
            name: "WaylandTests", dependencies: ["CLinux", "DBus", "TestSupport", "waypost", "waypost-contacts-gtk", "waypost-icecream-gtk"],
            exclude: ["Fixtures"], swiftSettings: strict),
        // A real Flatpak app built offline (a runtime from the host's files, a local repo), in a throwaway
        // FLATPAK_USER_DIR: registration through xdg-dbus-proxy, launch through `flatpak run`, the portal.
        .testTarget(
            name: "FlatpakTests", dependencies: ["TestSupport", "waypost"],
            exclude: ["Fixtures"], swiftSettings: strict),
        .testTarget(
            name: "AssociationSourcesTests", dependencies: ["AssociationSources", "TestSupport", "association-verify"],
            exclude: ["Fixtures"],
            swiftSettings: strict),
        // Verifies one domain as `waypost links verify` will, for the tests that run it in a network namespace.
        .executableTarget(
            name: "association-verify", dependencies: ["AssociationSources"], path: "Tests/Apps/AssociationVerify",
            swiftSettings: strict),
        // Handoff between two devices: two kdeconnectd in two network namespaces, and the payload's own tests.
        .testTarget(
            name: "HandoffTests", dependencies: ["Handoff", "ExternalEvents", "TestSupport", "waypost"],
            exclude: ["Fixtures"], swiftSettings: strict),
        .testTarget(
            name: "DBusTests", dependencies: ["DBus", "TestSupport"],
            resources: [.copy("Fixtures")],
            swiftSettings: strict),
    ],
    swiftLanguageModes: [.v6]
)
