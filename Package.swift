// swift-tools-version:6.1
import CompilerPluginSupport
import PackageDescription

/// Every target compiles under the same rules: Swift 6 language mode (strict concurrency) plus
/// the upcoming features we rely on.
let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let lifecycle = Target.Dependency.product(name: "ServiceLifecycle", package: "swift-service-lifecycle")
let unixSignals = Target.Dependency.product(name: "UnixSignals", package: "swift-service-lifecycle")
let logging = Target.Dependency.product(name: "Logging", package: "swift-log")
let grdb = Target.Dependency.product(name: "GRDB", package: "GRDB.swift")
let grdbSQLite = Target.Dependency.product(name: "GRDBSQLite", package: "GRDB.swift")
let argumentParser = Target.Dependency.product(name: "ArgumentParser", package: "swift-argument-parser")
let postgres = Target.Dependency.product(name: "PostgresNIO", package: "postgres-nio")
let nioSSL = Target.Dependency.product(name: "NIOSSL", package: "swift-nio-ssl")
let hummingbird = Target.Dependency.product(name: "Hummingbird", package: "hummingbird")
let hummingbirdTesting = Target.Dependency.product(name: "HummingbirdTesting", package: "hummingbird")
let mustache = Target.Dependency.product(name: "Mustache", package: "swift-mustache")
let httpClient = Target.Dependency.product(name: "AsyncHTTPClient", package: "async-http-client")
let crypto = Target.Dependency.product(name: "Crypto", package: "swift-crypto")

let package = Package(
    name: "Sous",
    platforms: [.macOS(.v15)],
    products: [
        // The five services in one executable: `sous-catalog`, `sous-planner`, `sous-groceries`,
        // `sous-tracker` and `sous-notifier` are links to it (deploy/link-services.sh), so services
        // on one host share its pages instead of each mapping a copy of the same code.
        .executable(name: "sous-server", targets: ["sous-server"]),
        .executable(name: "sous", targets: ["sous"]),
        .executable(name: "sous-bench", targets: ["sous-bench"]),
        .executable(name: "sous-protocol-reference", targets: ["sous-protocol-reference"]),
        // For Benchmarks/Peers, a package of its own that serves the same catalog over HTTP and
        // gRPC next to Sous (so the main build never compiles those stacks).
        .library(name: "SousCatalogForBenchmarks", targets: ["CatalogService", "CatalogTesting", "SousTestSupport"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/swiftlang/swift-syntax", from: "603.0.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
    ],
    targets: [
        // MARK: Shared layer
        .systemLibrary(name: "CZeroMQ", path: "Shared/CZeroMQ"),
        .target(name: "ZeroMQ", dependencies: ["CZeroMQ"], path: "Shared/ZeroMQ", swiftSettings: swiftSettings),
        .systemLibrary(name: "CSodium", path: "Shared/CSodium"),
        .target(name: "SousCrypto", dependencies: ["CSodium"], path: "Shared/Crypto", swiftSettings: swiftSettings),
        // `@MessagePackCodable`: the schema types' direct MessagePack coding, derived from their Codable declarations.
        .macro(
            name: "SousMacros",
            dependencies: [
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"), .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
            ],
            path: "Shared/Macros",
            swiftSettings: swiftSettings
        ),
        .target(name: "MessagePack", dependencies: ["SousMacros"], path: "Shared/MessagePack", swiftSettings: swiftSettings),
        .target(name: "SousWire", dependencies: ["MessagePack"], path: "Shared/Wire", swiftSettings: swiftSettings),
        .target(name: "SousSchema", dependencies: ["SousWire", "MessagePack"], path: "Shared/Schema", swiftSettings: swiftSettings),
        // Quantities, units, densities, piece weights and prices: the catalog's and the grocery list's arithmetic.
        .target(name: "SousUnits", dependencies: ["SousSchema"], path: "Shared/Units", swiftSettings: swiftSettings),
        // schema.org Recipe JSON-LD in and out, ingredient lines and ISO 8601 durations: pure parsing for recipe import and export.
        .target(name: "SousInterchange", dependencies: ["SousSchema"], path: "Shared/Interchange", swiftSettings: swiftSettings),
        // Fetching from the web for the services (recipe pages, Open Food Facts): public
        // addresses only, bounded in size and time.
        .target(
            name: "SousFetch",
            dependencies: [
                "SousRuntime", httpClient, .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            path: "Shared/Fetch", swiftSettings: swiftSettings),
        // Sending mail through the operator's relay (SMTP with STARTTLS or TLS), for the outbox's `mail` channel.
        .target(
            name: "SousMail",
            dependencies: [
                "SousRuntime", .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"), nioSSL,
            ],
            path: "Shared/Mail", swiftSettings: swiftSettings),
        // Charts as SVG text (the diary's bars against goals, a month of gluten tests): pure, no I/O, on the schema's dates and macros.
        .target(name: "SousCharts", dependencies: ["SousSchema"], path: "Shared/Charts", swiftSettings: swiftSettings),
        // Calling services: the typed client, endpoints, sign-in credentials. What the CLI links
        // (no GRDB, no service lifecycle).
        .target(
            name: "SousClient",
            dependencies: ["ZeroMQ", "MessagePack", "SousWire", "SousSchema"],
            path: "Shared/Client",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "SousRuntime",
            dependencies: [
                "SousClient", "ZeroMQ", "MessagePack", "SousWire", "SousCrypto", lifecycle, unixSignals, logging, grdb, grdbSQLite, argumentParser,
                postgres, nioSSL,
            ],
            path: "Shared/Runtime",
            swiftSettings: swiftSettings
        ),
        // Fails a test that leaves a ZeroMQ socket open (a Swift Testing trait).
        .target(name: "SocketCheck", dependencies: ["ZeroMQ"], path: "Shared/SocketCheck", swiftSettings: swiftSettings),
        .target(
            name: "SousTestSupport",
            dependencies: ["ZeroMQ", "SousWire", "SousSchema", "SousRuntime", "SocketCheck", logging, hummingbird, hummingbirdTesting, httpClient],
            path: "Shared/TestSupport",
            swiftSettings: swiftSettings
        ),
        // Each service ready to run in-process for tests (its fixture lives with the service), and
        // all five together (StackFixture) for tests of the whole system.
        .target(
            name: "CatalogTesting", dependencies: ["CatalogService", "SousTestSupport", "SousRuntime", "SousSchema", "SousFetch", logging],
            path: "Services/Catalog/Testing", swiftSettings: swiftSettings
        ),
        .target(
            name: "PlannerTesting", dependencies: ["PlannerService", "SousTestSupport", "SousRuntime", "SousSchema", logging],
            path: "Services/Planner/Testing", swiftSettings: swiftSettings
        ),
        .target(
            name: "GroceriesTesting", dependencies: ["GroceriesService", "SousTestSupport", "SousRuntime", "SousSchema", logging],
            path: "Services/Groceries/Testing", swiftSettings: swiftSettings
        ),
        .target(
            name: "TrackerTesting", dependencies: ["TrackerService", "SousTestSupport", "SousRuntime", "SousSchema", logging],
            path: "Services/Tracker/Testing", swiftSettings: swiftSettings
        ),
        .target(
            name: "NotifierTesting",
            dependencies: ["NotifierService", "SousTestSupport", "SousRuntime", "SousSchema", "SousFetch", "SousMail", logging],
            path: "Services/Notifier/Testing", swiftSettings: swiftSettings
        ),
        .target(
            name: "SousServiceTesting",
            dependencies: [
                "SousTestSupport", "SousRuntime", "SousSchema", "SousWire", "SousCrypto", "CatalogTesting", "PlannerTesting", "GroceriesTesting",
                "TrackerTesting", "NotifierTesting", "CatalogService", "PlannerService", "GroceriesService", "TrackerService", "NotifierService",
                logging,
            ],
            path: "Shared/ServiceTesting",
            swiftSettings: swiftSettings
        ),

        // Rewrites docs/PROTOCOL.md's method and type reference from what the services describe.
        .executableTarget(
            name: "sous-protocol-reference",
            dependencies: ["SousServiceTesting", "SousRuntime", "SousWire"],
            path: "Tools/ProtocolReference",
            swiftSettings: swiftSettings
        ),

        // MARK: Services
        .target(
            name: "CatalogService",
            dependencies: ["SousRuntime", "SousSchema", "SousUnits", "SousWire", "SousInterchange", "SousFetch", "MessagePack", grdb, logging],
            path: "Services/Catalog/CatalogService",
            resources: [.copy("Seed")],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "CatalogMain",
            dependencies: ["CatalogService", "SousRuntime", "SousSchema", "SousWire", "SousFetch", argumentParser],
            path: "Services/Catalog/Main",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "PlannerService",
            dependencies: ["SousRuntime", "SousSchema", "SousWire", "SousCrypto", "SousMail", grdb, logging, lifecycle],
            path: "Services/Planner/PlannerService",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "PlannerMain",
            dependencies: ["PlannerService", "SousRuntime", "SousSchema", "SousWire", "SousMail", argumentParser],
            path: "Services/Planner/Main",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "GroceriesService",
            dependencies: ["SousRuntime", "SousSchema", "SousUnits", "SousWire", "MessagePack", grdb, logging],
            path: "Services/Groceries/GroceriesService",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "GroceriesMain",
            dependencies: ["GroceriesService", "SousRuntime", "SousSchema", "SousWire", argumentParser],
            path: "Services/Groceries/Main",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "TrackerService",
            dependencies: ["SousRuntime", "SousSchema", "SousWire", "SousFetch", grdb, logging],
            path: "Services/Tracker/TrackerService",
            resources: [.copy("Seed")],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "TrackerMain",
            dependencies: ["TrackerService", "SousRuntime", "SousSchema", "SousWire", argumentParser],
            path: "Services/Tracker/Main",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "NotifierService",
            dependencies: ["SousRuntime", "SousSchema", "SousWire", "SousCrypto", "SousFetch", "SousMail", crypto, grdb, logging, lifecycle],
            path: "Services/Notifier/NotifierService",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "NotifierMain",
            dependencies: ["NotifierService", "SousRuntime", "SousSchema", "SousWire", argumentParser],
            path: "Services/Notifier/Main",
            swiftSettings: swiftSettings
        ),

        // The web app: HTML pages over HTTP for browsers, one more client of the five services.
        .target(
            name: "WebApp",
            dependencies: [
                "SousClient", "SousSchema", "SousWire", "SousCrypto", "SousCharts", "SousUnits", "SousInterchange", "ZeroMQ", hummingbird, mustache,
                logging, lifecycle,
            ],
            path: "Services/Web/WebApp",
            // The stylesheet, the script, the service worker, the manifest and the icon, compiled
            // into the one executable (PackageResources): nothing to copy beside it.
            resources: [.embedInCode("Assets")],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "WebMain",
            dependencies: ["WebApp", "SousClient", "SousRuntime", "SousWire", "ZeroMQ", hummingbird, logging, lifecycle, argumentParser],
            path: "Services/Web/Main",
            swiftSettings: swiftSettings
        ),

        // `sous-server`: whichever service it is started as (Services/Server).
        .executableTarget(
            name: "sous-server",
            dependencies: [
                "CatalogMain", "PlannerMain", "GroceriesMain", "TrackerMain", "NotifierMain", "WebMain", "SousRuntime", "SousWire", argumentParser,
            ],
            path: "Services/Server",
            swiftSettings: swiftSettings
        ),

        // MARK: Command-line client
        .target(
            name: "SousCLI",
            dependencies: ["SousClient", "SousSchema", "SousWire", "SousCharts", "SousInterchange", "SousUnits", argumentParser],
            path: "Services/CLI/SousCLI",
            swiftSettings: swiftSettings
        ),
        .executableTarget(name: "sous", dependencies: ["SousCLI"], path: "Services/CLI/Main", swiftSettings: swiftSettings),

        // MARK: Benchmarks
        .executableTarget(
            name: "sous-bench",
            dependencies: [
                "ZeroMQ", "MessagePack", "SousWire", "SousSchema", "SousRuntime", "CatalogService", "PlannerService", "GroceriesService",
                "TrackerService", "NotifierService", "CatalogTesting", "PlannerTesting", "GroceriesTesting", "TrackerTesting", "NotifierTesting",
                "SousServiceTesting", "SousTestSupport", "SousCrypto", "SousInterchange", "SousFetch", "SousMail", argumentParser, logging, grdb,
                hummingbird, crypto,
            ],
            path: "Benchmarks/SousBench",
            swiftSettings: swiftSettings
        ),

        // MARK: Tests
        .testTarget(name: "ZeroMQTests", dependencies: ["ZeroMQ", "SocketCheck"], path: "Tests/ZeroMQTests", swiftSettings: swiftSettings),
        .testTarget(
            name: "MessagePackTests", dependencies: ["MessagePack", "SousWire"], path: "Tests/MessagePackTests", swiftSettings: swiftSettings),
        .testTarget(name: "SchemaTests", dependencies: ["SousSchema", "SousUnits"], path: "Tests/SchemaTests", swiftSettings: swiftSettings),
        .testTarget(
            name: "InterchangeTests", dependencies: ["SousInterchange", "SousSchema"], path: "Tests/InterchangeTests", swiftSettings: swiftSettings
        ),
        .testTarget(name: "ChartTests", dependencies: ["SousCharts", "SousSchema"], path: "Tests/ChartTests", swiftSettings: swiftSettings),
        .testTarget(
            name: "RuntimeTests",
            dependencies: [
                "SousRuntime", "SousTestSupport", "SousWire", "SousSchema", "ZeroMQ", "MessagePack", "SousCrypto", grdb, logging, argumentParser,
            ],
            path: "Tests/RuntimeTests",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "CatalogTests",
            dependencies: [
                "CatalogService", "CatalogTesting", "SousRuntime", "SousTestSupport", "SousSchema", "SousWire", "SousInterchange", "SousFetch",
                logging, grdb, hummingbird, hummingbirdTesting,
            ],
            path: "Tests/CatalogTests",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "MailTests", dependencies: ["SousMail", "SousRuntime", "SousTestSupport"], path: "Tests/MailTests", swiftSettings: swiftSettings),
        .testTarget(
            name: "PlannerTests",
            dependencies: [
                "CatalogService", "PlannerService", "GroceriesService", "TrackerService", "NotifierService", "CatalogTesting", "PlannerTesting",
                "TrackerTesting", "SousServiceTesting", "SousRuntime", "SousTestSupport", "SousSchema", "SousWire", "MessagePack", "SousCrypto",
                "SousMail", logging, grdb,
            ],
            path: "Tests/PlannerTests",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "GroceriesTests",
            dependencies: [
                "CatalogService", "PlannerService", "GroceriesService", "CatalogTesting", "PlannerTesting", "GroceriesTesting", "SousRuntime",
                "SousTestSupport", "SousSchema", "SousUnits", "SousWire", "MessagePack", "ZeroMQ", logging, grdb,
            ],
            path: "Tests/GroceriesTests",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "TrackerTests",
            dependencies: [
                "CatalogService", "PlannerService", "TrackerService", "CatalogTesting", "PlannerTesting", "TrackerTesting", "SousRuntime",
                "SousTestSupport", "SousSchema", "SousWire", "SousFetch", logging, grdb, hummingbird, hummingbirdTesting,
            ],
            path: "Tests/TrackerTests",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "NotifierTests",
            dependencies: [
                "CatalogService", "PlannerService", "TrackerService", "NotifierService", "CatalogTesting", "PlannerTesting", "TrackerTesting",
                "NotifierTesting", "SousRuntime", "SousTestSupport", "SousSchema", "SousWire", "MessagePack", "SousMail", "SousFetch", "SousCrypto",
                logging, grdb, crypto,
            ],
            path: "Tests/NotifierTests",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "FuzzTests",
            dependencies: [
                "CatalogService", "PlannerService", "GroceriesService", "TrackerService", "NotifierService", "CatalogTesting", "PlannerTesting",
                "GroceriesTesting", "TrackerTesting", "NotifierTesting", "SousServiceTesting", "SousRuntime", "SousTestSupport", "SousSchema",
                "SousWire",
                "MessagePack",
                "ZeroMQ", grdb,
            ],
            path: "Tests/FuzzTests",
            exclude: ["Corpus", "make_corpus.py"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "CLITests",
            dependencies: [
                "SousCLI", "CatalogService", "PlannerService", "GroceriesService", "TrackerService", "NotifierService", "CatalogTesting",
                "PlannerTesting", "GroceriesTesting", "TrackerTesting", "NotifierTesting", "SousServiceTesting", "SousRuntime", "SousTestSupport",
                "SousSchema", "SousWire", "SousInterchange", "MessagePack", logging, hummingbird,
            ],
            path: "Tests/CLITests",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "WebTests",
            dependencies: [
                "WebApp", "SousClient", "SousServiceTesting", "SousRuntime", "SousTestSupport", "SousSchema", "SousWire", "PlannerService",
                "SousMail", hummingbird, hummingbirdTesting, logging,
            ],
            path: "Tests/WebTests",
            swiftSettings: swiftSettings
        ),
    ]
)
