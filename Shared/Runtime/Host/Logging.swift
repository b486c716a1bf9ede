public import Logging
import Synchronization

/// Process-wide logging setup: one line per record on stderr, at the configured level.
public enum SousLogging {
    private static let bootstrapped = Atomic<Bool>(false)

    /// Installs the stderr handler once; later calls only return a logger.
    public static func bootstrap(level: Logger.Level) {
        guard bootstrapped.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else { return }
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
    }

    /// The logger of a service, labelled `sous.<service>`.
    public static func logger(for service: String, level: Logger.Level) -> Logger {
        var logger = Logger(label: "sous.\(service)")
        logger.logLevel = level
        return logger
    }
}
