import Foundation
import HTTPTypes
import Hummingbird
import Mustache
import NIOCore

/// The page templates (``Templates``), rendered with `{{…}}` escaping every value; the one raw
/// insertion is the SVG charts, which SousCharts escapes itself.
struct Views: Sendable {
    let library: MustacheLibrary

    init() throws {
        var library = MustacheLibrary()
        for (name, text) in Templates.all { try library.register(text, named: name) }
        self.library = library
    }

    /// The page `template` inside the layout, with what every page shows: the title, the
    /// navigation (for a signed-in person, `section` marked current), the form token, a message.
    func page(
        _ template: String, title: String, section: String? = nil, _ data: [String: Any] = [:], context: WebContext,
        status: HTTPResponse.Status = .ok, error: WebError? = nil, notice: String? = nil
    ) -> Response {
        var values = data
        values["title"] = title
        values["csrf"] = context.formToken
        if let session = context.session {
            values["signedIn"] = ["name": session.name]
        }
        if let section { values["nav_\(section)"] = true }
        // The "More" pages' tabs mark the page itself (the profile is the settings template).
        let tab = ["settings": "profile", "friend_progress": "friends", "friends_board": "friends"][template] ?? template
        values["tab_\(tab)"] = true
        if let error {
            values["error"] = error.message
            if let field = error.field { values["errorField"] = field }
        }
        if let notice { values["notice"] = notice }
        let html = library.render(values, withTemplate: template) ?? ""
        return Self.html(html, status: status)
    }

    /// A template alone, without the layout (a part of a page a script puts in place).
    func fragment(_ template: String, _ data: [String: Any]) -> String {
        library.render(data, withTemplate: template) ?? ""
    }

    func errorPage(_ error: WebError, context: WebContext) -> Response {
        page("error", title: Self.title(for: error.status), ["message": error.message], context: context, status: error.status)
    }

    static func title(for status: HTTPResponse.Status) -> String {
        switch status {
        case .notFound: "Not found"
        case .forbidden: "Refused"
        case .tooManyRequests: "Slow down"
        case .contentTooLarge: "Too large"
        case .serviceUnavailable: "Not answering"
        case .internalServerError: "Something went wrong"
        default: "Could not do that"
        }
    }

    static func html(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(
            status: status, headers: [.contentType: "text/html; charset=utf-8"], body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    /// A 303 to `path` (after a POST: reloading the page then does not send the form again).
    static func seeOther(_ path: String) -> Response {
        Response(status: .seeOther, headers: [.location: path])
    }

    /// `text` percent-encoded for a query value.
    static func urlQueryValue(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~/")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }

    /// An SVG document from SousCharts, ready to sit inside HTML (without its XML prolog).
    static func inlineSVG(_ svg: String) -> String {
        guard svg.hasPrefix("<?xml"), let end = svg.firstIndex(of: "\n") else { return svg }
        return String(svg[svg.index(after: end)...])
    }
}
