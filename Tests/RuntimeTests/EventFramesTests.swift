import Foundation
import MessagePack
import SousWire
import Testing

/// An event is its topic frame and one message frame: the protocol bytes, the header, then the
/// body, byte for byte as each encodes alone, and it parses back to the same event.
struct EventFramesTests {
    @Test func anEventIsItsTopicThenPrefixHeaderAndBodyInOneFrame() throws {
        let time = Date(timeIntervalSince1970: 1_795_000_000.25)
        for user in ["ada", String(repeating: "é", count: 300)] {
            let header = EventHeader(topic: EventTopics.activity.name, source: "catalog", time: time)
            let activity = ActivityEvent(user: user, time: time, service: "catalog", method: "recipes.get")
            let frames = try Envelope.eventFrames(header, body: activity)
            let apart = SousProtocol.prefix(.event) + (try MessagePackEncoder().encode(header)) + (try MessagePackEncoder().encode(activity))
            #expect(frames == [Array(header.topic.utf8), apart])
            let parsed = try Envelope.parseEvent(frames)
            #expect(parsed.header == header)
            #expect(try parsed.decode(ActivityEvent.self) == activity)
        }
    }
}
