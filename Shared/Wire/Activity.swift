public import Foundation
public import MessagePack

/// Published under ``EventTopics/activity`` for every user action on any service; the notifier
/// uses it to know who is actively using Sous.
@MessagePackCodable
public struct ActivityEvent: Codable, Equatable, Sendable {
    public var user: String
    public var time: Date
    /// The service and method the user called.
    public var service: String
    public var method: String

    public init(user: String, time: Date, service: String, method: String) {
        self.user = user
        self.time = time
        self.service = service
        self.method = method
    }
}

/// Topics of the events services publish. Subscribers match on prefixes, so every topic is a
/// dotted path starting with its area.
public enum EventTopics {
    public static let activity = Topic<ActivityEvent>("activity")
}
