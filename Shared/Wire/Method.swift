public import MessagePack

/// Whom a method is sent to, as a type: ``Method``'s first parameter. A client of one service
/// (`ServiceClient<Catalog>`) only compiles calls of that service's methods and of the methods
/// every service answers (``AnyService``).
public protocol MethodScope: Sendable {
    /// The service's name, as configuration, logs and errors spell it ("catalog").
    static var name: String { get }
}

/// One service: the scope of its own methods.
public protocol ServiceKind: MethodScope {}

public enum Catalog: ServiceKind { public static let name = "catalog" }
public enum Planner: ServiceKind { public static let name = "planner" }
public enum Groceries: ServiceKind { public static let name = "groceries" }
/// The tracker, which also serves the coeliac diary.
public enum Tracker: ServiceKind { public static let name = "tracker" }
public enum Notifier: ServiceKind { public static let name = "notifier" }

/// The methods every service answers (`health`, `describe`, the clock, `account.erase`): any
/// client sends them.
public enum AnyService: MethodScope { public static let name = "any service" }

/// A typed method of a service: the service that serves it, its wire name, the types of its
/// request and reply bodies, and how the runtime treats it.
public struct Method<Scope: MethodScope, Request: Codable & Sendable, Response: Codable & Sendable>: Sendable, CustomStringConvertible {
    public let name: String
    /// Reads are safe to repeat; writes are sent with an idempotency key so that a retried write
    /// is applied once.
    public let isWrite: Bool
    /// Who may call it; the server checks this before any handler runs (see ``Access``).
    public let access: Access
    /// Where the server runs it (see ``MethodLane``).
    public let lane: MethodLane
    /// Whether the server remembers the reply of a keyed write to replay it for a retry. False
    /// for writes that forget the user (deleting an account): remembering would keep their data.
    public let remembersReply: Bool
    /// Whether a successful call is the user's own action: the server then publishes `activity`
    /// (what the notifier's reminders follow). True for `user` methods unless they say
    /// `activity: false` (lookups other services make for a user, account housekeeping).
    public let recordsActivity: Bool
    /// When the server looks a keyed write's idempotency key up (``KeyCheck``).
    public let keyCheck: KeyCheck
    /// Fields the request type leaves optional (it serves other methods too) that this method
    /// needs, and fields of which it needs at least one: said in `describe`, so a client knows
    /// before it is refused.
    public let fields: FieldRule

    public init(
        _ name: String, write: Bool, access: Access, lane: MethodLane = .standard, remembersReply: Bool = true, activity: Bool? = nil,
        keyCheck: KeyCheck = .beforeHandler, fields: FieldRule = FieldRule()
    ) {
        self.name = name
        self.isWrite = write
        self.access = access
        self.lane = lane
        self.remembersReply = write && remembersReply
        self.recordsActivity = activity ?? access.actsForUser
        self.keyCheck = keyCheck
        self.fields = fields
    }

    public static func read(_ name: String, _ access: Access, lane: MethodLane = .standard, activity: Bool? = nil) -> Method {
        Method(name, write: false, access: access, lane: lane, activity: activity)
    }

    public static func write(
        _ name: String, _ access: Access, lane: MethodLane = .standard, remembersReply: Bool = true, activity: Bool? = nil,
        keyCheck: KeyCheck = .beforeHandler, fields: FieldRule = FieldRule()
    ) -> Method {
        Method(
            name, write: true, access: access, lane: lane, remembersReply: remembersReply, activity: activity, keyCheck: keyCheck,
            fields: fields)
    }

    public var description: String { name }
}

extension Method {
    /// The same method with its reply read as `Projection`: a type that declares some of the
    /// reply's fields, under the same names. A caller that needs a few fields of a large reply
    /// decodes only those (the decoder skips the rest, as it skips any field it does not know);
    /// nothing on the wire changes.
    public func replying<Projection>(as _: Projection.Type) -> Method<Scope, Request, Projection> {
        Method<Scope, Request, Projection>(
            name, write: isWrite, access: access, lane: lane, remembersReply: remembersReply, activity: recordsActivity, keyCheck: keyCheck,
            fields: fields)
    }
}

/// What a method needs of its request's optional fields: every one of `required`, and at least
/// one of `oneOf`.
public struct FieldRule: Sendable, Equatable {
    public var required: [String]
    public var oneOf: [String]

    public init(required: [String] = [], oneOf: [String] = []) {
        self.required = required
        self.oneOf = oneOf
    }
}

/// When the server looks up the idempotency key of a keyed write. Either way a retry is
/// answered the first attempt's reply and the write is applied once (docs/PROTOCOL.md,
/// "Idempotency"); they differ in what a retry runs, and in what a first attempt costs.
public enum KeyCheck: Sendable {
    /// Before the handler runs, in a read of its own: a retry runs nothing. For handlers that
    /// change anything besides their own service's database (in-memory state such as the
    /// sign-in throttle), which must not run again, and for heavy ones (imports, a seed reload),
    /// whose retry should not redo their work only to be rolled back.
    case beforeHandler
    /// Only by the write's own transaction, which stores the key and finds it taken: a retry
    /// runs the handler again up to its write, which is rolled back, and an attempt that fails
    /// is answered from the ledger when its key is there. A first attempt saves a read
    /// transaction. For handlers whose only change is their service's database (reads of other
    /// services are fine; a write to another is keyed by this key and applied once there too).
    case atCommit
    /// Before the handler, as ``beforeHandler``, except that a key whose write was applied but
    /// never answered (its attempt died between a commit and its reply) runs the handler again
    /// to finish, instead of being refused: for handlers whose every step is safe to repeat (a
    /// state found already reached is kept, a peer write is keyed by a key derived from this
    /// one), such as marking a meal cooked and logging its serving.
    case resumable
}

/// Who may call a method. Every method declares one next to its request and reply types; the
/// server enforces it before the handler runs (docs/PROTOCOL.md, "Access").
@MessagePackCodable
public enum Access: String, Sendable, CaseIterable, Codable {
    /// Anyone who completed the CURVE handshake: `health`, registering and signing in.
    case `public`
    /// A signed-in user (a valid session token), or a Sous service acting for one. The handler
    /// sees only the verified user, and answers only with that user's data.
    case user
    /// A signed-in user, or a Sous service acting for one, on data the people of their household
    /// share (the week plan, the grocery list): the server finds the caller's household before
    /// the handler runs and hands it over (`RequestContext.household`), so a handler can only
    /// reach the household its caller belongs to.
    case household
    /// A signed-in user, or a Sous service acting for one, reading what their friends chose to
    /// share with them: the server asks the planner which friends share what before the handler
    /// runs and hands over only those (`RequestContext.friends`); a request naming a friend
    /// (``FriendScoped``) who does not share with the caller is refused before the handler runs,
    /// and the handler reads whom the server chose (`RequestContext.subject`), never the field.
    case friend
    /// A signed-in user whose account is an operator's: changes to what every user shares.
    case `operator`
    /// Only another Sous service (an allow-listed CURVE key): erasure, revocation lists.
    case service

    /// Whether the method acts for a signed-in user (or a service acting for one).
    public var actsForUser: Bool { self == .user || self == .household || self == .friend }
}

/// The group of threads a server runs a method's handler on, each with its own bound on
/// requests in flight: work in one lane never holds up another.
@MessagePackCodable
public enum MethodLane: String, Sendable, CaseIterable, Codable {
    /// `health` and clock control: answered even while every other lane is full.
    case control
    /// Ordinary reads and writes.
    case standard
    /// Queries that may scan much of a table (searches over every recipe, long histories).
    case heavy
}

/// The body of a method that takes or returns nothing; encoded as an empty map. Decoding
/// demands a map (extra keys are ignored, as everywhere): `[]`, `5`, `"x"` or nil are refused.
@MessagePackCodable
public struct Empty: Codable, Equatable, Sendable {
    public init() {}

    private enum CodingKeys: CodingKey {}

    public init(from decoder: any Decoder) throws {
        _ = try decoder.container(keyedBy: CodingKeys.self)
    }

    public func encode(to encoder: any Encoder) throws {
        _ = encoder.container(keyedBy: CodingKeys.self)
    }
}
