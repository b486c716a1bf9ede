import Foundation
import Logging
import ServiceLifecycle
import SousCrypto
import SousRuntime
import SousSchema
import SousWire
import Synchronization

/// The `account.*` methods: registering, signing in and out, sessions, passwords, deletion.
struct AccountHandlers: Sendable {
    let host: HostParts
    let store: AccountStore
    let signer: SessionSigner
    let eraser: AccountEraser
    /// The relay recovery codes go out by, and the courier that sends what is queued for it.
    let mail: AccountMail
    let courier: OutboxCourier?
    let throttle = Throttle()

    var now: Date { Date() }

    /// The route table: every `account.*` method the planner serves and the function that answers it.
    func register(on server: RPCServer) {
        server.register(AccountAPI.register, use: registerAccount)
        server.register(AccountAPI.login, use: login)
        server.register(AccountAPI.logout, use: logout)
        server.register(AccountAPI.whoami, use: whoami)
        server.register(AccountAPI.sessions, use: sessions)
        server.register(AccountAPI.endSession, use: endSession)
        server.register(AccountAPI.changePassword, use: changePassword)
        server.register(AccountAPI.delete, use: delete)
        server.register(AccountAPI.revocations, use: revocations)
        server.register(AccountAPI.names, use: names)
        server.register(AccountAPI.recover, use: recover)
        server.register(AccountAPI.reset, use: reset)
        server.register(AccountAPI.verify, use: verify)
        server.register(AccountAPI.resendVerification, use: resendVerification)
    }

    /// `account.names`: display names for another service to show.
    func names(_ request: UserIDs, context: RequestContext) throws -> UserNames {
        guard request.users.count <= UserIDs.maxUsers else {
            throw ServiceError.badRequest("at most \(UserIDs.maxUsers) users per call", field: "users")
        }
        return UserNames(names: try store.displayNames(of: request.users))
    }

    // MARK: Signing up, in and out

    /// `account.register` (named apart from the route table, `register(on:)`).
    /// An address refused for too many failures registers nothing (and a registration never
    /// ends with an account its maker cannot sign in to); one that tries an email with an account
    /// is counted like a failed sign-in, so it cannot learn who has an account faster than it
    /// could guess passwords.
    func registerAccount(_ request: Registration, context: RequestContext) throws -> AccountInfo {
        let address = Self.address(of: context)
        let clock = host.clock.now
        try checkAddress(address, now: clock, context: context, refusing: "registration")
        let info: AccountInfo
        do {
            info = try store.createAccount(
                email: request.email, password: request.password, name: request.name, role: .user, now: now, confirmingBy: mail, mailedAt: clock)
        } catch {
            if error.code == .conflict, error.field == "email" { throttle.withLock { $0.failed(address: address, now: clock) } }
            throw error
        }
        if !info.emailVerified { courier?.wake() }
        context.logger.notice("account registered", metadata: ["user": "\(info.user)", "emailVerified": "\(info.emailVerified)"])
        return info
    }

    /// `rateLimited` when the caller's address failed too often lately (sign-ins, registrations
    /// of taken emails, recovery requests and wrong codes all count), logged as `what` refused.
    func checkAddress(_ address: String?, now: Date, context: RequestContext, refusing what: String) throws(ServiceError) {
        if let refusal = throttle.withLock({ $0.refusal(account: nil, address: address, now: now) }) {
            context.logger.notice("\(what) refused: too many failures", metadata: ["address": "\(address ?? "in-process")"])
            throw refusal
        }
    }

    /// The client's IP address, for calls that came over the network.
    static func address(of context: RequestContext) -> String? {
        if case .client(let address) = context.principal { address } else { nil }
    }

    func login(_ request: SignIn, context: RequestContext) throws -> SignedIn {
        let email = try AccountRules.normalizedEmail(request.email)
        try AccountRules.checkOfferedPassword(request.password)
        let device = try AccountRules.checkName(request.device, field: "device")
        let account = try checkPassword(request.password, email: email, context: context)
        // Told only to whoever knows the password.
        if mail.verifiesEmail, !account.emailVerified {
            throw ServiceError(
                .forbidden, "confirm your email first with the code mailed to \(account.email) (account.verify), or ask for a new one",
                field: "email")
        }
        let session = try store.createSession(user: account.user, device: device, now: now)
        context.logger.notice("signed in", metadata: ["user": "\(account.user)", "session": "\(session.id)"])
        return SignedIn(token: token(for: session, role: account.role), session: info(session, current: session.id), account: account)
    }

    func logout(_ request: Empty, context: RequestContext) throws -> Empty {
        let claims = try signedIn(context)
        if let ended = try store.endSession(claims.session, user: claims.user) { revoked(ended) }
        return Empty()
    }

    // MARK: Sessions

    func whoami(_ request: Empty, context: RequestContext) throws -> WhoAmI {
        let claims = try signedIn(context)
        guard let account = try store.account(user: claims.user),
            let session = try store.sessions(user: claims.user, now: now).first(where: { $0.id == claims.session })
        else {
            throw ServiceError(.unauthorized, "this session was ended; sign in again", field: "header.session")
        }
        return WhoAmI(account: account.info, session: info(session, current: claims.session))
    }

    func sessions(_ request: Empty, context: RequestContext) throws -> SessionList {
        let claims = try signedIn(context)
        return SessionList(sessions: try store.sessions(user: claims.user, now: now).map { info($0, current: claims.session) })
    }

    func endSession(_ request: SessionRef, context: RequestContext) throws -> SessionList {
        let claims = try signedIn(context)
        guard let ended = try store.endSession(request.session, user: claims.user) else {
            throw ServiceError.notFound("you have no session \(request.session)", field: "session")
        }
        revoked(ended)
        return SessionList(sessions: try store.sessions(user: claims.user, now: now).map { info($0, current: claims.session) })
    }

    // MARK: Password and deletion

    func changePassword(_ request: PasswordChange, context: RequestContext) throws -> PasswordChanged {
        let claims = try signedIn(context)
        guard let account = try store.account(user: claims.user) else { throw ServiceError.notFound("the account no longer exists") }
        try AccountRules.checkOfferedPassword(request.current, field: "current")
        _ = try checkPassword(request.current, email: account.info.email, context: context, field: "current")
        try AccountRules.checkNewPassword(request.new, email: account.info.email, field: "new")
        guard request.new != request.current else { throw ServiceError.badRequest("the new password is the current one", field: "new") }
        let ended = try store.changePassword(user: claims.user, to: request.new, keeping: claims.session, now: now)
        revoked(ended)
        context.logger.notice("password changed", metadata: ["endedSessions": "\(ended.count)"])
        return PasswordChanged(endedSessions: ended.count)
    }

    func delete(_ request: AccountDeletion, context: RequestContext) async throws -> AccountDeleted {
        let claims = try signedIn(context)
        guard let account = try store.account(user: claims.user) else { throw ServiceError.notFound("the account no longer exists") }
        try AccountRules.checkOfferedPassword(request.password)
        _ = try checkPassword(request.password, email: account.info.email, context: context)
        let (ended, dissolved) = try store.deleteAccount(user: claims.user, erasingIn: AccountEraser.services, now: now)
        revoked(ended)
        if try !store.database.checkpointAfterErasure() {
            context.logger.warning("a reader kept the checkpoint after an erasure from emptying the WAL; the next checkpoint will")
        }
        context.logger.notice("account deleted", metadata: ["user": "\(claims.user)"])
        let erased = await eraser.eraseNow(user: claims.user, dissolving: dissolved, for: context)
        return AccountDeleted(
            user: claims.user, erased: [SousService.planner.rawValue] + erased.map(\.rawValue),
            pending: AccountEraser.services.filter { !erased.contains($0) }.map(\.rawValue)
        )
    }

    // MARK: Other services

    func revocations(_ request: RevocationsSince, context: RequestContext) throws -> Revocations {
        try store.revocations(since: request.since, now: now)
    }

    // MARK: Helpers

    /// The account whose password this is, or `unauthorized` (`rateLimited` after repeated
    /// failures). An unknown email costs the same hashing time as a wrong password.
    private func checkPassword(
        _ password: String, email: String, context: RequestContext, field: String = "password"
    ) throws(ServiceError) -> AccountInfo {
        let address = Self.address(of: context)
        // Lockouts run on the service clock (the system's, unless a test sets a manual one);
        // tokens keep real time, since every service checks their expiry against its own.
        let now = host.clock.now
        if let refusal = throttle.withLock({ $0.refusal(account: email, address: address, now: now) }) {
            context.logger.notice("sign-in refused: too many failures", metadata: ["address": "\(address ?? "in-process")"])
            throw refusal
        }
        let account = try store.account(email: email)
        let matches = Sodium.verifyPassword(password, hash: account?.passwordHash ?? Self.decoyHash)
        guard let account, matches else {
            throttle.withLock { $0.failed(account: email, address: address, now: now) }
            context.logger.notice("sign-in failed", metadata: ["address": "\(address ?? "in-process")"])
            throw ServiceError(.unauthorized, "the email or the password is wrong", field: field)
        }
        throttle.withLock { $0.succeeded(account: email) }
        return account.info
    }

    /// A hash of nothing anyone knows, checked for unknown emails so they take as long as
    /// known ones.
    private static let decoyHash = Sodium.hashPassword(AccountStore.newID(prefix: "decoy-")) ?? ""

    private func signedIn(_ context: RequestContext) throws(ServiceError) -> SessionClaims {
        guard let claims = context.session else {
            throw ServiceError(.unauthorized, "\(context.method) needs your own session token, not a service acting for you", field: "header.session")
        }
        return claims
    }

    private func token(for session: AccountStore.StoredSession, role: AccountRole) -> String {
        signer.token(for: SessionClaims(session: session.id, user: session.user, role: role, expires: Int64(session.expiresAt.timeIntervalSince1970)))
    }

    private func info(_ session: AccountStore.StoredSession, current: String) -> SessionInfo {
        SessionInfo(
            id: session.id, device: session.device, createdAt: session.createdAt, expiresAt: session.expiresAt, current: session.id == current)
    }

    /// Applies ended sessions here at once and tells the other services.
    func revoked(_ sessions: [RevokedSession]) {
        guard !sessions.isEmpty, let latest = try? store.revocations(since: host.gate.revocations.sequence, now: now) else { return }
        host.gate.revocations.apply(latest.revoked, upTo: latest.sequence)
        host.publisher.publish(AccountTopics.revoked, SessionsRevokedEvent(sequence: latest.sequence))
    }
}

/// Erases a deleted account's rows in the other four services: at once while `account.delete`
/// answers, and again every few seconds for any service that did not answer, until each has.
final class AccountEraser: Service, Sendable {
    static let services: [SousService] = [.catalog, .groceries, .tracker, .notifier]
    static let retryInterval = Duration.seconds(5)

    private let store: AccountStore
    private let households: HouseholdStore
    private let peers: [SousService: Peer<AnyService>]
    private let logger: Logger

    init(store: AccountStore, households: HouseholdStore, configuration: ServiceConfiguration, logger: Logger) {
        self.store = store
        self.households = households
        var peers: [SousService: Peer<AnyService>] = [:]
        for service in Self.services { peers[service] = Peer<AnyService>(service, of: configuration) }
        self.peers = peers
        self.logger = logger
    }

    /// Asks every service with a pending erasure of `user` (and of the households dissolved
    /// with it); returns those that confirmed both.
    func eraseNow(user: String, dissolving households: [String] = [], for context: RequestContext?) async -> [SousService] {
        var erased: [SousService] = []
        await withTaskGroup(of: SousService?.self) { group in
            for service in Self.services {
                group.addTask {
                    var done = await self.erase(user: user, in: service, for: context)
                    for household in households where done {
                        done = await self.erase(household: household, in: service, for: context)
                    }
                    return done ? service : nil
                }
            }
            for await done in group { if let done { erased.append(done) } }
        }
        return Self.services.filter(erased.contains)
    }

    /// Erases in every service what households nobody belongs to any more shared (queued by
    /// the change that emptied them); what fails is retried by ``run()``.
    func eraseHouseholds(_ dissolved: [String], for context: RequestContext?) async {
        guard !dissolved.isEmpty else { return }
        await withTaskGroup(of: Void.self) { group in
            for service in Self.services {
                group.addTask { for household in dissolved { _ = await self.erase(household: household, in: service, for: context) } }
            }
        }
    }

    private func erase(household: String, in service: SousService, for context: RequestContext?) async -> Bool {
        guard let peer = peers[service] else { return false }
        do {
            _ = try await peer.call(HouseholdLookup.erase, HouseholdRef(household: household), user: nil, for: context)
            try households.erasureDone(household: household, service: service)
            return true
        } catch {
            logger.notice("household erasure pending", metadata: ["service": "\(service.rawValue)", "error": "\(error)"])
            return false
        }
    }

    private func erase(user: String, in service: SousService, for context: RequestContext?) async -> Bool {
        guard let peer = peers[service] else { return false }
        do {
            _ = try await peer.call(AccountAPI.erase, Empty(), user: user, for: context)
            try store.erasureDone(user: user, service: service)
            return true
        } catch {
            logger.notice("erasure pending", metadata: ["service": "\(service.rawValue)", "error": "\(error)"])
            return false
        }
    }

    func run() async throws {
        _ = try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                if let pending = try? self.store.pendingErasures() {
                    for (user, service) in pending { _ = await self.erase(user: user, in: service, for: nil) }
                }
                if let pending = try? self.households.pendingErasures() {
                    for (household, service) in pending { _ = await self.erase(household: household, in: service, for: nil) }
                }
                try await Task.sleep(for: Self.retryInterval)
            }
        }
    }
}

/// The sign-in throttle shared by the account handlers.
final class Throttle: Sendable {
    private let state = Mutex(LoginThrottle())

    func withLock<T>(_ body: (inout LoginThrottle) -> T) -> T {
        state.withLock { body(&$0) }
    }
}
