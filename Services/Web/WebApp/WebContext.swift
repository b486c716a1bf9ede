public import Hummingbird
import NIOCore

/// What the edge learned about a request before a page handles it: who is signed in, the form
/// it sent (read, size-checked and its token checked once, for every POST), the token its
/// forms must carry.
public struct WebContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The client's address (the proxy's, unless the proxy is trusted to say whom it forwards).
    let peerAddress: String
    /// The person's address: ``peerAddress``, or the one a trusted proxy names. The rate limit
    /// counts it, and the services' limits per address (sign-ins, recovery) are told it.
    var clientAddress = ""
    var session: WebSession?
    /// The form a POST sent; empty for other methods.
    var form = Form()
    /// The token this browser's forms carry (bound to its session, or to its visitor cookie).
    var formToken = ""

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        peerAddress = source.channel.remoteAddress?.ipAddress ?? "unknown"
    }

    /// The signed-in person, or the refusal that sends them to the sign-in page.
    func signedIn() throws(WebError) -> WebSession {
        guard let session else { throw .signInRequired }
        return session
    }
}
