internal import CZeroMQ

#if canImport(Glibc)
    internal import Glibc
#endif

/// Readiness a poll waits for.
public struct ZMQPollEvents: OptionSet, Sendable {
    public let rawValue: Int16
    public init(rawValue: Int16) { self.rawValue = rawValue }
    public static let readable = ZMQPollEvents(rawValue: Int16(ZMQ_POLLIN))
    public static let writable = ZMQPollEvents(rawValue: Int16(ZMQ_POLLOUT))
}

/// `zmq_poll` over several sockets.
public enum ZMQPoller {
    /// Waits until any socket is ready for its events, or `timeout` passes (`nil`: wait forever).
    /// - Returns: the ready events per socket, in the order given (empty set: not ready).
    public static func poll(_ items: [(socket: ZMQSocket, events: ZMQPollEvents)], timeout: Duration?) throws(ZMQError) -> [ZMQPollEvents] {
        var pollItems = items.map { zmq_pollitem_t(socket: $0.socket.handle, fd: -1, events: $0.events.rawValue, revents: 0) }
        let milliseconds = timeout.map(Self.milliseconds) ?? -1
        let count = pollItems.count
        _ = try retryingEINTR("zmq_poll") {
            pollItems.withUnsafeMutableBufferPointer { zmq_poll($0.baseAddress, Int32(count), milliseconds) }
        }
        return pollItems.map { ZMQPollEvents(rawValue: $0.revents) }
    }

    /// Waits until one socket is ready for `events`. Returns whether it became ready in time.
    public static func poll(_ socket: ZMQSocket, for events: ZMQPollEvents, timeout: Duration?) throws(ZMQError) -> Bool {
        !(try poll([(socket, events)], timeout: timeout)[0].isEmpty)
    }

    /// Waits until any of `descriptors` (sockets' ``ZMQSocket/eventDescriptor()``) is
    /// signalled, or `timeout` passes: one `poll(2)`, where `zmq_poll` also asks every socket
    /// for its events before and after, each a poll of its mailbox.
    /// - Returns: per descriptor, whether it was signalled.
    public static func wait(_ descriptors: [Int32], timeout: Duration) throws(ZMQError) -> [Bool] {
        var items = descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        let milliseconds = Int32(clamping: Self.milliseconds(timeout))
        while true {
            let result = items.withUnsafeMutableBufferPointer { Glibc.poll($0.baseAddress, nfds_t($0.count), milliseconds) }
            if result >= 0 { break }
            let code = errno
            if code == EINTR { continue }
            throw ZMQError(code: code, operation: "poll")
        }
        return items.map { $0.revents != 0 }
    }

    static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        if seconds < 0 { return 0 }
        // Round up so a sub-millisecond timeout still waits rather than busy-polling.
        return Int(seconds) * 1000 + Int((attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
    }
}
