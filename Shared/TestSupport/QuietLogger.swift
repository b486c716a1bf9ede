public import Logging

/// A logger that only reports critical problems, so test output stays readable.
public func quietLogger(_ label: String) -> Logger {
    var logger = Logger(label: "test.\(label)")
    logger.logLevel = .critical
    return logger
}
