import CatalogService
import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2Posix
import SousSchema

/// gRPC messages as JSON through Foundation's `JSONEncoder`, the same codec the HTTP side uses
/// (no protoc, no Protocol Buffers: the Codable schema types go over the wire as they are).
struct JSONSerializer<Message: Encodable>: MessageSerializer {
    func serialize<Bytes: GRPCContiguousBytes>(_ message: Message) throws -> Bytes {
        Bytes(try JSONEncoder().encode(message))
    }
}

struct JSONDeserializer<Message: Decodable>: MessageDeserializer {
    func deserialize<Bytes: GRPCContiguousBytes>(_ serializedMessageBytes: Bytes) throws -> Message {
        try serializedMessageBytes.withUnsafeBytes { try JSONDecoder().decode(Message.self, from: Data($0)) }
    }
}

/// `sous.Catalog/SearchRecipes`, one unary method, hand-registered on the router.
struct CatalogGRPCService: RegistrableRPCService {
    static let searchRecipes = MethodDescriptor(fullyQualifiedService: "sous.Catalog", method: "SearchRecipes")
    let store: CatalogStore

    func registerMethods<Transport: ServerTransport>(with router: inout RPCRouter<Transport>) {
        let store = store
        router.registerHandler(
            forMethod: Self.searchRecipes, deserializer: JSONDeserializer<RecipeSearch>(), serializer: JSONSerializer<RecipePage>()
        ) { request, _ in
            let search = try await ServerRequest(stream: request).message
            let page = try store.searchRecipes(search, user: "bench", filter: search.profile.map { ($0, search.switches ?? FilterSwitches()) })
            return StreamingServerResponse(single: ServerResponse(message: page))
        }
    }
}

/// The gRPC server (grpc-swift-2 over its NIO HTTP/2 transport, plaintext, on 127.0.0.1) and a
/// client of it on one HTTP/2 connection.
struct GRPCPeer {
    let server: GRPCServer<HTTP2ServerTransport.Posix>
    let serving: Task<Void, any Error>
    let client: GRPCClient<HTTP2ClientTransport.Posix>
    let connecting: Task<Void, any Error>
    let port: Int

    static func start(store: CatalogStore) async throws -> GRPCPeer {
        let transport = HTTP2ServerTransport.Posix(address: .ipv4(host: "127.0.0.1", port: 0), transportSecurity: .plaintext)
        let server = GRPCServer(transport: transport, services: [CatalogGRPCService(store: store)])
        let serving = Task { try await server.serve() }
        guard let port = try await transport.listeningAddress.ipv4?.port else { throw PeerError("gRPC server bound no IPv4 address") }
        let client = GRPCClient(
            transport: try HTTP2ClientTransport.Posix(target: .ipv4(address: "127.0.0.1", port: port), transportSecurity: .plaintext)
        )
        let connecting = Task { try await client.runConnections() }
        return GRPCPeer(server: server, serving: serving, client: client, connecting: connecting, port: port)
    }

    func search(_ search: RecipeSearch) async throws -> RecipePage {
        try await client.unary(
            request: ClientRequest(message: search), descriptor: CatalogGRPCService.searchRecipes, serializer: JSONSerializer<RecipeSearch>(),
            deserializer: JSONDeserializer<RecipePage>(), options: .defaults
        ) { try $0.message }
    }

    func stop() async {
        client.beginGracefulShutdown()
        _ = try? await connecting.value
        server.beginGracefulShutdown()
        _ = try? await serving.value
    }
}
