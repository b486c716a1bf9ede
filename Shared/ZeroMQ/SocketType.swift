internal import CZeroMQ

/// The ZeroMQ socket patterns Sous uses.
public enum ZMQSocketType: Int32, Sendable {
    case pair = 0
    case pub = 1
    case sub = 2
    case req = 3
    case rep = 4
    case dealer = 5
    case router = 6
    case pull = 7
    case push = 8
    case xpub = 9
    case xsub = 10
}
