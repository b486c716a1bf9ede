import Foundation
public import Hummingbird
public import Logging
import NIOCore
import SousCrypto

/// The web app: routes, pages and the edge every request passes (``Edge``). One value serves
/// any number of requests; it holds nothing per person.
public final class WebApp: Sendable {
    public let configuration: WebConfiguration
    let backend: Backend
    let views: Views
    let keys: CookieKeys

    public init(configuration: WebConfiguration) throws {
        self.configuration = configuration
        backend = Backend(configuration: configuration)
        views = try Views()
        keys = CookieKeys(secret: configuration.secret, secure: configuration.secureCookies)
    }

    public func router() -> Router<WebContext> {
        let router = Router(context: WebContext.self)
        router.add(
            middleware: Edge(
                keys: keys, views: views, limits: configuration.limits,
                limiter: RateLimiter(perMinute: configuration.limits.requestsPerMinute, burst: configuration.limits.burst),
                trustForwardedFor: configuration.trustForwardedFor))
        Assets.addRoutes(to: router)
        router.get("/") { _, context in Views.seeOther(context.session == nil ? "/signin" : "/week") }
        // For proxies and orchestrators: the process answers (the services have their own checks).
        router.get("/healthz") { _, _ in Response(status: .ok, headers: [.contentType: "text/plain"], body: .init(byteBuffer: .init(string: "ok\n")))
        }
        AccountPages(app: self).addRoutes(to: router)
        RecipePages(app: self).addRoutes(to: router)
        WeekPages(app: self).addRoutes(to: router)
        TemplatePages(app: self).addRoutes(to: router)
        CalendarPages(app: self).addRoutes(to: router)
        ListPages(app: self).addRoutes(to: router)
        PantryPages(app: self).addRoutes(to: router)
        CookPages(app: self).addRoutes(to: router)
        DiaryPages(app: self).addRoutes(to: router)
        SettingsPages(app: self).addRoutes(to: router)
        FriendsPages(app: self).addRoutes(to: router)
        return router
    }

    /// The HTTP/1.1 server: idle connections closed after ``WebLimits/idleTimeout``, headers
    /// limited in size and count.
    public func application(logger: Logger) -> some ApplicationProtocol {
        let idle = configuration.limits.idleTimeout.components.seconds
        return Application(
            router: router(),
            server: .http1(
                configuration: .init(
                    idleTimeout: .seconds(idle),
                    httpDecoderConfiguration: .init(maxHeaderFieldSize: 16 * 1024, maxHeaderListSize: 32 * 1024, maxHeaderFieldCount: 100))),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "sous-web"),
            logger: logger
        )
    }
}
