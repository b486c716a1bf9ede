import Foundation
import MessagePack
import SousWire
import Testing

/// An event's frames are the same bytes whether its body is encoded apart first or straight
/// into the frame after the header (what the publisher does), and parse back to that event.
struct EventFramesTests {
    @Test func aBodyEncodedIntoTheFrameIsTheSameEvent() throws {
        let time = Date(timeIntervalSince1970: 1_795_000_000.25)
        for user in ["ada", String(repeating: "é", count: 300)] {
            let header = EventHeader(topic: EventTopics.activity.name, source: "catalog", time: time)
            let activity = ActivityEvent(user: user, time: time, service: "catalog", method: "recipes.get")
            let frames = try Envelope.eventFrames(header, encoding: activity)
            #expect(frames == (try Envelope.eventFrames(header, body: MessagePackEncoder().encode(activity))))
            let parsed = try Envelope.parseEvent(frames)
            #expect(parsed.header == header)
            #expect(try parsed.decode(ActivityEvent.self) == activity)
        }
    }
}
