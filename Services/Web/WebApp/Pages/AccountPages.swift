import Foundation
import HTTPTypes
import Hummingbird
import SousClient
import SousSchema
import SousWire

/// Sign up, sign in, sign out, and the account page: sessions, password, export and import,
/// deletion.
struct AccountPages {
    let app: WebApp

    func addRoutes(to router: Router<WebContext>) {
        router.get("/signin") { request, context in
            if context.session != nil { return Views.seeOther("/week") }
            let next = localPath(request.uri.queryParameters.get("next")) ?? ""
            return app.views.page("signin", title: "Sign in", ["next": next], context: context)
        }
        router.post("/signin") { request, context in
            let form = context.form
            let email = form.text("email") ?? ""
            let next = localPath(form.text("next")) ?? "/week"
            return try await app.submit {
                let password = form.raw("password") ?? ""
                guard !email.isEmpty else { throw WebError.field("email", "Email is required") }
                guard !password.isEmpty else { throw WebError.field("password", "Password is required") }
                let signedIn: SignedIn
                do {
                    signedIn = try await app.checkingPassword {
                        try await app.backend.planner.call(
                            AccountAPI.login, SignIn(email: email, password: password, device: Self.device(request)),
                            forwardedFor: context.clientAddress)
                    }
                } catch let error as ServiceError where error.code == .forbidden && error.field == "email" {
                    return verifyPage(
                        context, email: email, status: .forbidden,
                        error: WebError(
                            status: .forbidden, message: "Confirm your email first: enter the code mailed to \(email) when you made your account.",
                            field: "code"))
                }
                return signInResponse(signedIn, goingTo: next)
            } orShow: { error in
                app.views.page("signin", title: "Sign in", ["email": email, "next": next], context: context, status: error.status, error: error)
            }
        }
        router.get("/verify") { request, context in
            verifyPage(context, code: String((request.uri.queryParameters.get("code") ?? "").prefix(20)))
        }
        router.post("/verify") { _, context in
            let code = context.form.text("code") ?? ""
            return try await app.submit {
                let account = try await app.backend.planner.call(
                    AccountAPI.verify, EmailVerification(code: code), forwardedFor: context.clientAddress)
                return app.views.page(
                    "signin", title: "Sign in", ["email": account.email, "next": "/settings?welcome=1"], context: context,
                    notice: "Your email is confirmed. Sign in with your password.")
            } orShow: { error in
                verifyPage(context, code: code, status: error.status, error: error)
            }
        }
        router.post("/verify/resend") { _, context in
            let email = context.form.text("email") ?? ""
            return try await app.submit {
                guard !email.isEmpty else { throw WebError.field("email", "Email is required") }
                let started = try await app.backend.planner.call(
                    AccountAPI.resendVerification, RecoveryRequest(email: email), forwardedFor: context.clientAddress)
                return verifyPage(context, email: email, notice: started.message)
            } orShow: { error in
                verifyPage(context, email: email, status: error.status, error: error)
            }
        }
        router.get("/forgot") { _, context in
            app.views.page("forgot", title: "Forgot your password", context: context)
        }
        router.post("/forgot") { _, context in
            let email = context.form.text("email") ?? ""
            return try await app.submit {
                guard !email.isEmpty else { throw WebError.field("email", "Email is required") }
                let started = try await app.backend.planner.call(
                    AccountAPI.recover, RecoveryRequest(email: email), forwardedFor: context.clientAddress)
                return app.views.page("reset", title: "Set a new password", context: context, notice: started.message)
            } orShow: { error in
                app.views.page("forgot", title: "Forgot your password", ["email": email], context: context, status: error.status, error: error)
            }
        }
        router.get("/reset") { request, context in
            let code = String((request.uri.queryParameters.get("code") ?? "").prefix(20))
            return app.views.page("reset", title: "Set a new password", ["code": code], context: context)
        }
        router.post("/reset") { _, context in
            let code = context.form.text("code") ?? ""
            return try await app.submit {
                let done = try await app.backend.planner.call(
                    AccountAPI.reset, PasswordReset(code: code, password: context.form.raw("password") ?? ""), forwardedFor: context.clientAddress)
                return app.views.page(
                    "signin", title: "Sign in", ["email": done.email, "next": ""], context: context,
                    notice: "Your new password is set, and every device was signed out. Sign in with it.")
            } orShow: { error in
                app.views.page("reset", title: "Set a new password", ["code": code], context: context, status: error.status, error: error)
            }
        }
        router.get("/register") { _, context in
            if context.session != nil { return Views.seeOther("/week") }
            return app.views.page("register", title: "Create your account", context: context)
        }
        router.post("/register") { request, context in
            let form = context.form
            let name = form.text("name") ?? "", email = form.text("email") ?? ""
            return try await app.submit {
                let password = form.raw("password") ?? ""
                let account = try await app.backend.planner.call(
                    AccountAPI.register, Registration(email: email, password: password, name: name), forwardedFor: context.clientAddress)
                guard account.emailVerified else {
                    return verifyPage(
                        context, email: account.email, notice: "Your account is made. A code is on its way to \(account.email): enter it here.")
                }
                let signedIn = try await app.backend.planner.call(
                    AccountAPI.login, SignIn(email: email, password: password, device: Self.device(request)), forwardedFor: context.clientAddress)
                return signInResponse(signedIn, goingTo: "/settings?welcome=1")
            } orShow: { error in
                app.views.page(
                    "register", title: "Create your account", ["name": name, "email": email], context: context, status: error.status, error: error)
            }
        }
        router.post("/signout") { _, context in
            if let session = context.session {
                // Already ended elsewhere is as good as ended here.
                _ = try? await app.backend.planner.call(AccountAPI.logout, Empty(), session: session.token)
            }
            var response = Views.seeOther("/signin")
            response.headers.append(HTTPField(name: .setCookie, value: app.keys.cleared(CookieKeys.sessionCookie)))
            return response
        }
        router.get("/account") { _, context in try await accountPage(context) }
        router.post("/account/password") { _, context in
            let session = try context.signedIn()
            return try await app.submit {
                let change = PasswordChange(current: context.form.raw("current") ?? "", new: context.form.raw("new") ?? "")
                let changed = try await app.checkingPassword(field: "current") {
                    try await app.backend.planner.call(AccountAPI.changePassword, change, session: session.token)
                }
                let others = changed.endedSessions == 1 ? "1 other session" : "\(changed.endedSessions) other sessions"
                return try await accountPage(context, notice: "Password changed; \(others) ended.")
            } orShow: { error in
                try await accountPage(context, error: error)
            }
        }
        router.post("/account/sessions/end") { _, context in
            let session = try context.signedIn()
            return try await app.submit {
                let ended = try context.form.required("session", label: "Session")
                _ = try await app.backend.planner.call(AccountAPI.endSession, SessionRef(session: ended), session: session.token)
                return Views.seeOther("/account")
            } orShow: { error in
                try await accountPage(context, error: error)
            }
        }
        router.post("/account/delete") { _, context in
            let session = try context.signedIn()
            return try await app.submit {
                let deletion = AccountDeletion(password: context.form.raw("password") ?? "")
                _ = try await app.checkingPassword { try await app.backend.planner.call(AccountAPI.delete, deletion, session: session.token) }
                var response = Views.seeOther("/register")
                response.headers.append(HTTPField(name: .setCookie, value: app.keys.cleared(CookieKeys.sessionCookie)))
                return response
            } orShow: { error in
                try await accountPage(context, error: error)
            }
        }
        router.get("/account/export") { _, context in
            let session = try context.signedIn()
            let archive = try await AccountArchive.export(app.backend.clients, user: session.user, token: session.token)
            let data = try ArchiveFile.encoder.encode(archive)
            let filename = "sous-\(LocalDate(Date(), in: .current)).json"
            return Response(
                status: .ok,
                headers: [.contentType: "application/json", .contentDisposition: "attachment; filename=\"\(filename)\""],
                body: ResponseBody(byteBuffer: .init(bytes: data)))
        }
        router.post("/account/import") { _, context in
            let session = try context.signedIn()
            return try await app.submit {
                guard let file = context.form.file("archive") else { throw WebError.field("archive", "Choose an archive file to import") }
                let archive = try ArchiveFile.read(Data(file.bytes), named: "The file")
                do {
                    let restored = try await AccountArchive.restore(archive, into: app.backend.clients, token: session.token)
                    return try await accountPage(context, notice: ([restored.summary] + restored.skipped).joined(separator: " "))
                } catch let partly as AccountArchive.PartlyRestored {
                    throw WebError(status: .conflict, message: partly.message)
                }
            } orShow: { error in
                try await accountPage(context, error: error)
            }
        }
    }

    private func accountPage(_ context: WebContext, error: WebError? = nil, notice: String? = nil) async throws -> Response {
        let session = try context.signedIn()
        async let whoami = app.backend.planner.call(AccountAPI.whoami, Empty(), session: session.token)
        async let sessions = app.backend.planner.call(AccountAPI.sessions, Empty(), session: session.token)
        let account = try await whoami.account
        let list = try await sessions.sessions.map { info -> [String: Any] in
            [
                "id": info.id, "device": info.device, "current": info.current, "created": Show.dateTime(info.createdAt),
                "expires": Show.dateTime(info.expiresAt),
            ]
        }
        return app.views.page(
            "account", title: "Account", section: "settings", ["account": ["name": account.name, "email": account.email], "sessions": list],
            context: context, status: error?.status ?? .ok, error: error, notice: notice)
    }

    private func verifyPage(
        _ context: WebContext, code: String = "", email: String = "", status: HTTPResponse.Status = .ok, error: WebError? = nil,
        notice: String? = nil
    ) -> Response {
        app.views.page(
            "verify", title: "Confirm your email", ["code": code, "email": email], context: context, status: status, error: error, notice: notice)
    }

    private func signInResponse(_ signedIn: SignedIn, goingTo path: String) -> Response {
        var response = Views.seeOther(path)
        let session = WebSession(token: signedIn.token, user: signedIn.account.user, name: signedIn.account.name)
        response.headers.append(HTTPField(name: .setCookie, value: app.keys.sessionCookie(session)))
        return response
    }

    /// The browser as the sessions list names it ("web: Firefox on Android").
    static func device(_ request: Request) -> String {
        let agent = request.headers[.userAgent] ?? ""
        let browser =
            ["Firefox", "Edg", "Chrome", "Safari"].first { agent.contains($0) }.map { $0 == "Edg" ? "Edge" : $0 } ?? "a browser"
        let system = ["Android", "iPhone", "iPad", "Windows", "Mac OS", "Linux"].first { agent.contains($0) }
        return "web: \(browser)" + (system.map { " on \($0 == "Mac OS" ? "macOS" : $0)" } ?? "")
    }
}
