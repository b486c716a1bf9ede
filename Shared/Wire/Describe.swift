public import MessagePack

/// What `describe` answers: a service's methods with the shapes of their requests and replies,
/// and every type those shapes name (docs/PROTOCOL.md, "Describing a service").
@MessagePackCodable
public struct ServiceDescription: Codable, Equatable, Sendable {
    public var service: String
    /// ``SousProtocol/version``.
    public var protocolVersion: Int
    /// By name.
    public var methods: [MethodDescription]
    /// Every object and enumeration type the methods use, by name.
    public var types: [WireType]

    public init(service: String, protocolVersion: Int, methods: [MethodDescription], types: [WireType]) {
        self.service = service
        self.protocolVersion = protocolVersion
        self.methods = methods
        self.types = types
    }
}

@MessagePackCodable
public struct MethodDescription: Codable, Equatable, Sendable {
    public var name: String
    /// Writes may be sent with an idempotency key; reads are safe to repeat.
    public var write: Bool
    public var access: Access
    /// Whether a write retried with the same idempotency key gets its first reply again (false
    /// for writes that forget the user, such as deleting an account).
    public var replaysReply: Bool
    /// Whether a successful call publishes the caller's `activity`.
    public var activity: Bool
    public var lane: MethodLane
    public var request: WireShape
    public var reply: WireShape
    /// Optional fields of the request type that this method needs; nil for none.
    public var required: [String]?
    /// Optional fields of the request type of which this method needs at least one; nil for none.
    public var oneOf: [String]?

    public init(
        name: String, write: Bool, replaysReply: Bool, activity: Bool, access: Access, lane: MethodLane, request: WireShape, reply: WireShape,
        required: [String]? = nil, oneOf: [String]? = nil
    ) {
        self.name = name
        self.write = write
        self.replaysReply = replaysReply
        self.activity = activity
        self.access = access
        self.lane = lane
        self.request = request
        self.reply = reply
        self.required = required
        self.oneOf = oneOf
    }
}

extension Method {
    /// This method's entry in a ``ServiceDescription``, adding the types it uses to `schema`.
    public func describe(into schema: inout WireSchema) throws -> MethodDescription {
        MethodDescription(
            name: name, write: isWrite, replaysReply: remembersReply, activity: recordsActivity, access: access, lane: lane,
            request: try schema.shape(of: Request.self),
            reply: try schema.shape(of: Response.self),
            required: fields.required.isEmpty ? nil : fields.required,
            oneOf: fields.oneOf.isEmpty ? nil : fields.oneOf
        )
    }
}
