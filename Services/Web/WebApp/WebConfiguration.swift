public import SousClient
public import ZeroMQ

/// What one `sous-web` process needs: where to listen, where the five services are, and the
/// key its cookies are sealed with. Nothing else is kept: several replicas with the same key
/// serve the same people behind a proxy.
public struct WebConfiguration: Sendable {
    /// The address and port to listen on (`SOUS_WEB_BIND`, default 127.0.0.1:8080).
    public var host: String
    public var port: Int
    /// Each service's request endpoint (or replicas, separated by commas).
    public var endpoints: [SousService: String]
    /// Where the services publish their CURVE public keys; nil for `inproc` endpoints (tests).
    public var keysDirectory: String?
    /// The web app's own long-term CURVE key pair (`<data>/web.curve`, published as
    /// `<keys>/web.pub`): the services trust the address it names for the person it serves
    /// only from this key. Nil: a fresh key for this run, which the services treat as any client.
    public var keyPair: CurveKeyPair?
    /// 32 bytes: cookies are sealed and form tokens derived with keys derived from it.
    public var secret: [UInt8]
    /// Cookies carry `Secure` (set when the app is served over HTTPS, behind a TLS proxy).
    public var secureCookies: Bool
    /// The client is the last address of `X-Forwarded-For` (set when a proxy in front says
    /// whom it forwards; without a proxy a client could name any address it likes).
    public var trustForwardedFor = false
    /// Where people open the web app (`SOUS_WEB_URL`, `https://sous.example.org`): the base of
    /// the calendar feed's address. Without it, the host the browser asked for.
    public var publicURL: String?
    /// How long one call to a service may take, retries included.
    public var callLimit: Duration
    public var limits: WebLimits

    public init(
        host: String = "127.0.0.1", port: Int = 8080, endpoints: [SousService: String], keysDirectory: String?, secret: [UInt8],
        secureCookies: Bool = false, callLimit: Duration = .seconds(10), limits: WebLimits = WebLimits()
    ) {
        self.host = host
        self.port = port
        self.endpoints = endpoints
        self.keysDirectory = keysDirectory
        self.secret = secret
        self.secureCookies = secureCookies
        self.callLimit = callLimit
        self.limits = limits
    }
}

/// What one request may send, and how fast one address may send them.
public struct WebLimits: Sendable {
    /// A form's whole body (URL-encoded).
    public var formBytes = 64 * 1024
    /// An upload's whole body (multipart: a photo, a recipe file).
    public var uploadBytes = 8 * 1024 * 1024
    /// An archive's upload (`/account/import`), from a signed-in browser only: photos fill an
    /// account up to 100 MiB, and base64 in the JSON file adds a third.
    public var archiveBytes = 160 * 1024 * 1024
    /// Fields in one form.
    public var formFields = 200
    /// Characters in one text field.
    public var fieldCharacters = 10_000
    /// Requests one client address may make per minute, and in a burst.
    public var requestsPerMinute = 600
    public var burst = 120
    /// A connection that sends nothing for this long is closed (a slow client holds nothing).
    public var idleTimeout: Duration = .seconds(30)
    /// How long one wait of the list's event stream lasts (the groceries service's long poll):
    /// an open list page costs one call per wait. A session that ends ends the wait at once
    /// (the service hears of it from the planner), so the stream says `ended` within moments.
    public var streamWait: Duration = .seconds(15)

    public init() {}
}
