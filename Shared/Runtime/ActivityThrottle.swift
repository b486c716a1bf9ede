import ServiceLifecycle
import SousWire
import Synchronization

/// Which of a service's `activity` events are published, and when: a user's first call at once,
/// then at most one more per ``interval``, the latest call of the interval when it is over.
///
/// The notifier only needs to know that and when a user was last active (its reminders are set
/// to the minute), and one event per call cost every call an encoding, a send on the event
/// socket and a wake-up of libzmq's I/O thread, and the notifier a write for each. An event that
/// waits keeps the time of its call, so it counts exactly as it would have on time.
final class ActivityThrottle: Sendable {
    static let interval: Duration = .seconds(1)

    private struct Window {
        var closes: ContinuousClock.Instant
        /// The latest call of the interval, published when it closes.
        var waiting: ActivityEvent?
    }

    let interval: Duration
    private let windows = Mutex<[String: Window]>([:])

    init(interval: Duration = ActivityThrottle.interval) {
        self.interval = interval
    }

    /// `event` if it is to be published now; nil if it waits for the end of its user's interval
    /// (replacing the one that waited).
    func admit(_ event: ActivityEvent, at now: ContinuousClock.Instant) -> ActivityEvent? {
        windows.withLock { windows in
            if let window = windows[event.user], now < window.closes {
                windows[event.user]?.waiting = event
                return nil
            }
            windows[event.user] = Window(closes: now + interval, waiting: nil)
            return event
        }
    }

    /// The events whose interval is over at `now` (every waiting one with `all`). A user whose
    /// event is published this way starts another interval; one with nothing waiting is forgotten.
    func due(at now: ContinuousClock.Instant, all: Bool = false) -> [ActivityEvent] {
        windows.withLock { windows in
            var due: [ActivityEvent] = []
            for (user, window) in windows where all || now >= window.closes {
                if let waiting = window.waiting, !all {
                    due.append(waiting)
                    windows[user] = Window(closes: now + interval, waiting: nil)
                } else {
                    if let waiting = window.waiting { due.append(waiting) }
                    windows[user] = nil
                }
            }
            return due.sorted { $0.time < $1.time }
        }
    }

    /// Users with an interval open (bounded by the users active in the last ``interval``).
    var openWindows: Int { windows.withLock { $0.count } }
}

/// Publishes the ``ActivityThrottle``'s waiting events when their interval is over, and every
/// one still waiting when the service stops (it stops after the server: nothing is admitted
/// after its last pass).
struct ActivityFlusher: Service {
    let throttle: ActivityThrottle
    let publish: @Sendable (ActivityEvent) -> Void

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try? await Task.sleep(for: throttle.interval / 4)
                for event in throttle.due(at: .now) { publish(event) }
            }
        }
        for event in throttle.due(at: .now, all: true) { publish(event) }
    }
}
