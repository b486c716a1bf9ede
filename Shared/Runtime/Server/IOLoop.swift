import Foundation
import Logging
import SousWire
import Synchronization
import ZeroMQ

extension RPCServer {
    /// The server's I/O thread: it reads requests, refuses what is past a bound, and hands the
    /// rest to the lanes, which send their own replies. Everything here is used by that thread
    /// alone (the ROUTER aside, behind its lock).
    final class IOLoop: @unchecked Sendable {
        let server: RPCServer
        let router: SharedRouter
        let pull: ZMQSocket
        let monitor: ZMQSocket?
        let executors: [MethodLane: ThreadPoolExecutor]
        /// Handshakes refused since the last log line: logged at most once a minute, since a
        /// refused client reconnects every few hundred milliseconds.
        var handshakeFailures: [HandshakeFailure.Kind: Int] = [:]
        var lastHandshakeLog = ContinuousClock.now - .seconds(60)
        var lastMonitorRead = ContinuousClock.now
        /// Set when a socket reports the context terminated (ETERM).
        var terminated = false
        /// Requests handed to a lane and not yet answered, per lane and per connection.
        var laneInFlight: [MethodLane: Int] = [:]
        var peerInFlight: [[UInt8]: Int] = [:]
        var total = 0
        /// Refusals and dropped replies since the last log line (logged at most once a second).
        var refusedSinceLog = 0
        var droppedSinceLog = 0
        var lastLog = ContinuousClock.now
        /// Whether the ROUTER has an `inproc` endpoint (in-process callers are trusted as the service).
        let servesInProcess: Bool

        init(server: RPCServer, router: SharedRouter, pull: ZMQSocket, monitor: ZMQSocket?, executors: [MethodLane: ThreadPoolExecutor]) {
            self.server = server
            self.router = router
            self.pull = pull
            self.monitor = monitor
            self.executors = executors
            servesInProcess = server.endpoints.contains { $0.hasPrefix("inproc://") }
        }

        func run() {
            defer {
                router.close()
                pull.close()
                monitor?.close()
                server.threadFinished.signal()
            }
            let descriptors: (router: Int32, pull: Int32)
            do {
                guard let routerDescriptor = try router.withSocket({ socket throws(ZMQError) in try socket.eventDescriptor() }) else { return }
                descriptors = (routerDescriptor, try pull.eventDescriptor())
            } catch {
                server.logger.critical("cannot wait on the server's sockets", metadata: ["error": "\(error)"])
                return
            }
            // The descriptors are edge-triggered (ZMQSocket.eventDescriptor): each pass empties
            // the mailbox, counts what the lanes answered and reads the ROUTER until EAGAIN
            // (every call on a socket may take in the event that would have signalled it)
            // before waiting in one poll(2).
            while true {
                takeWakeUps()
                takeFinished()
                let draining = server.draining.load(ordering: .acquiring)
                if draining && total == 0 { return }
                // Reading never pauses while serving: a ROUTER that stops reading lets a flooding
                // peer's queue grow and stalls its engine. Beyond the bounds, requests are refused.
                let moreWaiting = !draining && readRequests()
                if terminated { return }
                var signalled: [Bool] = []
                do {
                    let waited = draining ? [descriptors.pull] : [descriptors.pull, descriptors.router]
                    signalled = try ZMQPoller.wait(waited, timeout: moreWaiting ? .zero : server.options.pollInterval)
                } catch {
                    server.logger.error("poll failed", metadata: ["error": "\(error)"])
                }
                // Refused handshakes are only counted for a log line (once a minute at most):
                // their monitor is read when the loop is idle, or once a second while it is busy.
                if monitor != nil {
                    let now = ContinuousClock.now
                    if !signalled.contains(true) && !moreWaiting || now - lastMonitorRead >= .seconds(1) {
                        lastMonitorRead = now
                        readHandshakeFailures()
                    }
                }
                logRefusals()
            }
        }

        /// Empties the mailbox of the lanes' wake-ups (each an empty message).
        func takeWakeUps() {
            while true {
                do {
                    _ = try pull.receiveMultipart(dontWait: true)
                } catch {
                    if error.isTerminated { terminated = true }
                    if !error.isWouldBlock && !error.isTerminated { server.logger.error("mailbox read failed", metadata: ["error": "\(error)"]) }
                    return
                }
            }
        }

        /// Counts the requests the lanes have answered since the last look off the bounds.
        func takeFinished() {
            let jobs = server.finishedJobs.withLock { jobs -> [FinishedJob] in
                defer { jobs.removeAll(keepingCapacity: true) }
                return jobs
            }
            for job in jobs {
                total -= 1
                laneInFlight[job.lane, default: 1] -= 1
                if let count = peerInFlight[job.peer] {
                    peerInFlight[job.peer] = count > 1 ? count - 1 : nil
                }
            }
        }

        func send(_ frames: [ZMQFrame]) {
            switch router.send(frames) {
            case .sent: break
            // Dropped: the peer is gone (the ROUTER is mandatory) or stopped reading its replies.
            case .dropped: droppedSinceLog += 1
            case .failed(let error): server.logger.error("reply failed", metadata: ["error": "\(error)"])
            }
        }

        /// Reads what is waiting on the ROUTER (bounded, so replies keep flowing under load);
        /// whether more may be waiting (it stopped at the bound, not at `EAGAIN`).
        func readRequests() -> Bool {
            for _ in 0..<256 {
                let message: ZMQSocket.BoundedMessage
                do {
                    guard let received = try router.receive() else { return false }
                    message = received
                } catch {
                    if error.isTerminated { terminated = true }
                    if !error.isTerminated { server.logger.error("receive failed", metadata: ["error": "\(error)"]) }
                    return false
                }
                // Without a User-Id the message did not pass the ZAP handler: only an `inproc`
                // connection can do that, and only a server bound in-process accepts one.
                let principal =
                    message.property == nil && !servesInProcess ? .client(address: "unknown") : ConnectionPrincipal(userID: message.property)
                dispatch(message.frames, overflowed: message.overflowed, principal: principal)
            }
            return true
        }

        func dispatch(_ frames: [ZMQFrame], overflowed: Bool, principal: ConnectionPrincipal) {
            switch Envelope.parseRequest(frames, overflowed: overflowed) {
            case .dropped(let reason):
                server.logger.warning("dropped a message that cannot be answered", metadata: ["reason": "\(reason)"])
            case let .rejected(routing, requestID, error):
                server.logger.notice("rejected a malformed request", metadata: ["request": "\(requestID)", "error": "\(error.message)"])
                send(Envelope.errorReplyFrames(routing: routing, requestID: requestID, error: error))
            case let .request(routing, header, body):
                if TestHooks.recordCorpus != nil { TestHooks.record(method: header.method, body: body) }
                guard let registration = server.registration(of: header.method) else {
                    let error = ServiceError.badRequest("\(server.name) has no method \"\(header.method)\"", field: "header.method")
                    send(Envelope.errorReplyFrames(routing: routing, requestID: header.id, error: error))
                    return
                }
                if let deadline = header.deadline, deadline < Int64(Date().timeIntervalSince1970 * 1000) {
                    let error = ServiceError(.timeout, "the request's deadline passed before \(server.name) could start it")
                    send(Envelope.errorReplyFrames(routing: routing, requestID: header.id, error: error))
                    return
                }
                // The bounds count what the lanes have not answered: their notes are taken first,
                // since a caller may send again as soon as its reply is out.
                takeFinished()
                let lane = registration.lane
                let peer = routing[0]
                let limits = server.options.limits(of: lane)
                let fromPeer = peerInFlight[peer, default: 0]
                if fromPeer >= server.options.maxInFlightPerPeer && lane != .control {
                    refuse(routing, header, "\(fromPeer) requests from this connection are in flight (at most \(server.options.maxInFlightPerPeer))")
                    return
                }
                if laneInFlight[lane, default: 0] >= limits.maxInFlight {
                    refuse(routing, header, "\(limits.maxInFlight) \(lane.rawValue) requests are in flight")
                    return
                }
                total += 1
                laneInFlight[lane, default: 0] += 1
                peerInFlight[peer] = fromPeer + 1
                let job = Job(lane: lane, routing: routing, header: header, body: body, principal: principal, registration: registration)
                // One task per request, counted until its reply passes back through here, on
                // its lane's threads; started straight from this thread: a single hop.
                Task(executorPreference: executors[lane]) { [server] in await server.handle(job) }
            }
        }

        func refuse(_ routing: [Envelope.Frame], _ header: RequestHeader, _ why: String) {
            refusedSinceLog += 1
            let error = ServiceError(.unavailable, "\(server.name) is busy: \(why); retry shortly")
            send(Envelope.errorReplyFrames(routing: routing, requestID: header.id, error: error))
        }

        func readHandshakeFailures() {
            while let monitor, let frames = try? monitor.receiveMultipart(dontWait: true) {
                guard let failure = HandshakeFailure.parse(frames) else { continue }
                handshakeFailures[failure.kind, default: 0] += 1
            }
            guard !handshakeFailures.isEmpty, ContinuousClock.now - lastHandshakeLog >= .seconds(60) else { return }
            server.logger.warning(
                "refused connections: no CURVE, or a broken handshake",
                metadata: [
                    "withoutCurve": "\(handshakeFailures[.protocolError] ?? 0)",
                    "refusedByZAP": "\(handshakeFailures[.refused] ?? 0)",
                    "other": "\(handshakeFailures[.other] ?? 0)",
                    "endpoints": "\(server.endpoints.filter { !$0.hasPrefix("inproc://") }.joined(separator: " "))",
                ])
            handshakeFailures = [:]
            lastHandshakeLog = .now
        }

        func logRefusals() {
            droppedSinceLog += server.lanesDropped.exchange(0, ordering: .relaxed)
            guard refusedSinceLog + droppedSinceLog > 0, ContinuousClock.now - lastLog >= .seconds(1) else { return }
            server.logger.notice(
                "under load",
                metadata: [
                    "refusedBusy": "\(refusedSinceLog)", "repliesDropped": "\(droppedSinceLog)", "inFlight": "\(total)",
                ])
            refusedSinceLog = 0
            droppedSinceLog = 0
            lastLog = .now
        }
    }
}
