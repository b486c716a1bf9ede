import Foundation

/// One HTTP/1.0 GET of /healthz over a plain socket: what `sous-web check` and the compose
/// health check need, without an HTTP client library.
enum HealthProbe {
    static func answersOK(host: String, port: Int, timeoutMs: Int) -> Bool {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &found) == 0, let address = found else { return false }
        defer { freeaddrinfo(found) }
        let descriptor = socket(address.pointee.ai_family, address.pointee.ai_socktype, address.pointee.ai_protocol)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var timeout = timeval(tv_sec: timeoutMs / 1000, tv_usec: Int((timeoutMs % 1000) * 1000))
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard connect(descriptor, address.pointee.ai_addr, address.pointee.ai_addrlen) == 0 else { return false }
        let request = Array("GET /healthz HTTP/1.0\r\nHost: \(host)\r\n\r\n".utf8)
        guard write(descriptor, request, request.count) == request.count else { return false }
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = read(descriptor, &buffer, buffer.count)
        guard count > 12 else { return false }
        return String(decoding: buffer[..<count], as: UTF8.self).hasPrefix("HTTP/1.1 200")
            || String(decoding: buffer[..<count], as: UTF8.self).hasPrefix("HTTP/1.0 200")
    }
}
