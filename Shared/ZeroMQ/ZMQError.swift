internal import CZeroMQ

/// A failed libzmq call, carrying `errno` and libzmq's own description of it.
public struct ZMQError: Error, Equatable, CustomStringConvertible, Sendable {
    /// The `errno` value libzmq reported.
    public let code: Int32
    /// The libzmq function that failed, for log lines.
    public let operation: String

    public init(code: Int32, operation: String) {
        self.code = code
        self.operation = operation
    }

    /// libzmq's text for `code` (`zmq_strerror`). Made when asked: a non-blocking read ends with
    /// `EAGAIN` on every pass of a server's loop, and nobody reads that error's text.
    public var message: String { String(cString: zmq_strerror(code)) }

    /// The error for the calling thread's last failed libzmq call.
    static func last(_ operation: String) -> ZMQError {
        ZMQError(code: zmq_errno(), operation: operation)
    }

    public var description: String { "\(operation): \(message) (errno \(code))" }

    /// The non-blocking call would have blocked, or a receive/send timeout expired.
    public var isWouldBlock: Bool { code == EAGAIN }
    /// The context was terminated while the call was in progress.
    public var isTerminated: Bool { code == ETERM }
    /// ROUTER_MANDATORY: the addressed peer is not connected.
    public var isHostUnreachable: Bool { code == EHOSTUNREACH }
}

/// Runs a libzmq call that returns -1 on failure, retrying when a signal interrupted it.
@inline(__always)
func retryingEINTR(_ operation: String, _ call: () -> Int32) throws(ZMQError) -> Int32 {
    while true {
        let result = call()
        if result >= 0 { return result }
        let error = zmq_errno()
        if error == EINTR { continue }
        throw ZMQError(code: error, operation: operation)
    }
}
