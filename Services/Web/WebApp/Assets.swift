import Hummingbird
import NIOCore

/// The files every page uses, served from the executable itself (``PackageResources``): the
/// stylesheet, the script, the service worker (at the root, so it may control every page), the
/// manifest and the icon. Any other path under /static is 404: there is no file system behind it.
enum Assets {
    struct Asset: Sendable {
        let bytes: [UInt8]
        let type: String
    }

    static let files: [String: Asset] = [
        "/static/app.css": Asset(bytes: PackageResources.app_css, type: "text/css; charset=utf-8"),
        "/static/app.js": Asset(bytes: PackageResources.app_js, type: "text/javascript; charset=utf-8"),
        "/static/icon.svg": Asset(bytes: PackageResources.icon_svg, type: "image/svg+xml"),
        "/sw.js": Asset(bytes: PackageResources.sw_js, type: "text/javascript; charset=utf-8"),
        "/manifest.webmanifest": Asset(bytes: PackageResources.manifest_webmanifest, type: "application/manifest+json"),
    ]

    static func addRoutes(to router: Router<WebContext>) {
        for (path, asset) in files {
            router.get(RouterPath(path)) { _, _ in
                // Short-lived: a new version reaches browsers within minutes (the service worker
                // fetches them from the network first anyway).
                Response(
                    status: .ok, headers: [.contentType: asset.type, .cacheControl: "public, max-age=300"],
                    body: ResponseBody(byteBuffer: ByteBuffer(bytes: asset.bytes)))
            }
        }
    }
}
