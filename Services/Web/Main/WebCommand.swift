public import ArgumentParser
import Foundation
import Hummingbird
import Logging
import SousClient
import SousRuntime
import SousWire
import WebApp
import ZeroMQ

/// `sous-web` (a link to `sous-server`): the web app, one more client of the five services.
public struct WebCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "sous-web",
        abstract: "The Sous web app: HTML pages for browsers, talking to the five services over ZeroMQ.",
        discussion: """
            Settings come from the environment: SOUS_WEB_BIND (host:port, default 127.0.0.1:8080), \
            SOUS_<SERVICE>_ENDPOINT for each service, SOUS_KEYS_DIR (the services' public keys), SOUS_DATA_DIR \
            (where web.key, the secret cookies are sealed with, is created on first start; replicas share it), \
            SOUS_WEB_SECURE_COOKIES=1 behind an HTTPS proxy, SOUS_WEB_TRUST_PROXY=1 when that proxy sets \
            X-Forwarded-For, SOUS_WEB_URL (where people open it: the base of calendar feed addresses), SOUS_LOG_LEVEL.
            """,
        version: SousVersion.current,
        subcommands: [Serve.self, Check.self],
        defaultSubcommand: Serve.self
    )

    public init() {}

    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "serve", abstract: "Serve the web app until SIGTERM or SIGINT (the default).")

        func run() async throws {
            let environment = ProcessInfo.processInfo.environment
            let (host, port) = try WebSettings.bind(environment["SOUS_WEB_BIND"])
            let level = environment["SOUS_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .info
            SousLogging.bootstrap(level: level)
            var endpoints: [SousService: String] = [:]
            for service in SousService.allCases { endpoints[service] = ServiceEndpoints.fromEnvironment(service).requests }
            let dataDirectory = environment["SOUS_DATA_DIR"] ?? "./data"
            let secret = try Keyring.secretKey(named: "web", dataDirectory: dataDirectory)
            var logger = Logger(label: "web")
            logger.logLevel = level
            let keysDirectory = UserClientKeys.directory
            var configuration = WebConfiguration(
                host: host, port: port, endpoints: endpoints, keysDirectory: keysDirectory, secret: secret,
                secureCookies: environment["SOUS_WEB_SECURE_COOKIES"] == "1")
            configuration.keyPair = try Self.ownKeyPair(dataDirectory: dataDirectory, keysDirectory: keysDirectory, logger: logger)
            configuration.trustForwardedFor = environment["SOUS_WEB_TRUST_PROXY"] == "1"
            configuration.publicURL = environment["SOUS_WEB_URL"].flatMap { $0.isEmpty ? nil : $0 }
            logger.info("sous-web listening", metadata: ["address": "http://\(host):\(port)"])
            try await WebApp(configuration: configuration).application(logger: logger).runService()
        }

        /// `<data>/web.curve` (replicas sharing the folder share it), published as
        /// `<keys>/web.pub` so the services count failed sign-ins and recovery requests per
        /// person, not per web app. A folder it cannot write to is not fatal: the services then
        /// count everyone who signs in here as one address, and the log says so.
        static func ownKeyPair(dataDirectory: String, keysDirectory: String, logger: Logger) throws -> CurveKeyPair {
            let pair = try Keyring.ownKeyPair(named: "web", dataDirectory: dataDirectory)
            do {
                try Keyring.publishWebAppKey(pair.publicKey, in: keysDirectory)
            } catch {
                logger.warning(
                    "could not publish the web app's key: the services will count every sign-in through it as one address",
                    metadata: ["path": "\(Keyring.webAppKeyPath(in: keysDirectory))", "error": "\(error)"])
            }
            return pair
        }
    }

    struct Check: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "check", abstract: "Ask a running web app for /healthz (SOUS_WEB_BIND); exit 1 if it does not answer 200.")

        @Option(help: "Milliseconds to wait.") var timeoutMs = 2000

        func run() async throws {
            let (host, port) = try WebSettings.bind(ProcessInfo.processInfo.environment["SOUS_WEB_BIND"])
            let target = host == "0.0.0.0" ? "127.0.0.1" : host
            guard HealthProbe.answersOK(host: target, port: port, timeoutMs: timeoutMs) else {
                print("sous-web at \(target):\(port) did not answer /healthz")
                throw ExitCode.failure
            }
            print("sous-web at \(target):\(port) is healthy")
        }
    }
}

enum WebSettings {
    /// `host:port` (default 127.0.0.1:8080).
    static func bind(_ text: String?) throws -> (String, Int) {
        guard let text, !text.isEmpty else { return ("127.0.0.1", 8080) }
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (1...65535).contains(port) else {
            throw ValidationError("SOUS_WEB_BIND must be host:port, like 0.0.0.0:8080; got \(text)")
        }
        return (String(text[..<colon]), port)
    }
}
