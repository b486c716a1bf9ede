public import SousWire
public import ZeroMQ

/// How a server runs: its lanes, its bounds on what a connection may have in flight or queued,
/// and its key.
extension RPCServer {
    public struct Options: Sendable {
        /// Threads and requests in flight per lane.
        public var lanes: [MethodLane: LaneLimits] = [
            .control: LaneLimits(threads: 1, maxInFlight: 32),
            .standard: LaneLimits(threads: 6, maxInFlight: 256),
            // Two threads, but room for many waiting: 50 people searching at once is ordinary use,
            // not overload, and is queued rather than refused.
            .heavy: LaneLimits(threads: 2, maxInFlight: 128),
        ]
        /// Requests in flight from one connection, all lanes together: one client's burst gets
        /// `busy` replies beyond it while everyone else is served.
        public var maxInFlightPerPeer = 32
        /// Messages libzmq holds per connection before TCP pushes back (`ZMQ_RCVHWM`).
        public var receiveQueuePerConnection = 100
        /// Replies libzmq holds for a connection that does not read them (`ZMQ_SNDHWM`); beyond
        /// it a reply is dropped. A client reads its replies as they come, and has at most
        /// ``maxInFlightPerPeer`` requests in flight, so only one that stopped reading loses any.
        public var sendQueuePerConnection = 64
        public var maxMessageBytes = SousProtocol.maxMessageBytes
        /// How often the I/O thread looks at its shutdown flag when idle.
        public var pollInterval: Duration = .milliseconds(50)
        /// The service's long-term key: every endpoint but `inproc` is a CURVE server with it,
        /// and the server refuses to bind one without it (no plaintext).
        public var curve: CurveKeyPair?
        public init() {}

        func limits(of lane: MethodLane) -> LaneLimits {
            lanes[lane] ?? LaneLimits(threads: 1, maxInFlight: 16)
        }
    }

    public struct LaneLimits: Sendable {
        public var threads: Int
        public var maxInFlight: Int
        public init(threads: Int, maxInFlight: Int) {
            self.threads = threads
            self.maxInFlight = maxInFlight
        }
    }
}
