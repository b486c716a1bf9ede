import CatalogService
import Foundation
import MessagePack
import SousRuntime
import SousSchema
import SousServiceTesting
import SousTestSupport
import SousWire
import Testing
import TrackerService

/// docs/PROTOCOL.md stays true to the code: its method tables and type list are exactly what
/// the services describe (`swift run sous-protocol-reference` rewrites them).
@Suite(.closesItsSockets)
struct ContractTests {
    @Test func theProtocolReferenceIsWhatTheServicesDescribe() throws {
        let stack = try StackFixture.make()
        let protocolFile = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../docs/PROTOCOL.md")
        let document = try String(contentsOf: protocolFile, encoding: .utf8)
        let descriptions = try stack.hosts.map { try $0.server.description(of: $0.name) }
        let generated = try ProtocolReference.replacingBlocks(in: document, with: ProtocolReference.blocks(descriptions))
        #expect(generated == document, "docs/PROTOCOL.md differs from what the services describe: run `swift run sous-protocol-reference`")
        // Every served method is in a table, with its access.
        for host in stack.hosts {
            for (name, access) in host.server.registeredAccess {
                #expect(document.contains("| `\(name)` |") && generated.contains("| \(access.rawValue) |"), "\(name)")
            }
        }
    }
}

/// `describe` publishes every method's request and reply shapes from the code that decodes them.
@Suite(.closesItsSockets)
struct DescribeTests {
    @Test func everyServiceDescribesEveryMethodAndEveryTypeItNames() throws {
        let stack = try StackFixture.make()
        for host in stack.hosts {
            let description = try host.server.description(of: host.name)
            #expect(description.methods.map(\.name) == host.server.registeredMethods, "\(host.name)")
            let named = Set(description.types.map(\.name))
            func check(_ shape: WireShape, in place: String) {
                if let type = shape.type { #expect(named.contains(type), "\(place) names \(type), which is not described") }
                for element in shape.element ?? [] { check(element, in: place) }
            }
            for method in description.methods {
                check(method.request, in: "\(method.name) request")
                check(method.reply, in: "\(method.name) reply")
            }
            for type in description.types {
                for field in type.fields ?? [] { check(field.shape, in: "\(type.name).\(field.name)") }
            }
        }
    }

    /// What a method says it needs of its request's optional fields (`required`, `oneOf`) names
    /// optional fields of that request, and is what the method enforces: a body with everything
    /// else but without them is refused naming one of them.
    @Test func fieldsAMethodNeedsAreDescribedAndEnforced() async throws {
        let stack = try StackFixture.make()
        var declared: [(host: ServiceHost, method: MethodDescription, fields: [String])] = []
        for host in stack.hosts {
            let description = try host.server.description(of: host.name)
            let types = Dictionary(uniqueKeysWithValues: description.types.map { ($0.name, $0) })
            for method in description.methods {
                let needed = (method.required ?? []) + (method.oneOf ?? [])
                guard !needed.isEmpty else { continue }
                let fields = try #require(method.request.type.flatMap { types[$0]?.fields }, "\(method.name) takes an object")
                for name in needed {
                    let field = fields.first { $0.name == name }
                    #expect(field != nil && field?.required == false, "\(method.name) needs \(name), an optional field of its request")
                }
                declared.append((host, method, needed))
            }
        }
        #expect(Set(declared.map(\.method.name)) == ["recipes.create", "groceries.setRecipe", "goals.set"])
        // Each with the other fields it needs and none of those it declares.
        let bodies: [String: [UInt8]] = [
            "recipes.create": try MessagePackEncoder().encode(RecipeDraft(servings: 2)),
            "groceries.setRecipe": try MessagePackEncoder().encode(SetListRecipe(recipe: "tomato-lentil-soup")),
            "goals.set": try MessagePackEncoder().encode(GoalsChange()),
        ]
        try await withRunningServices(stack.hosts) { _ in
            _ = try await stack.client(Groceries.self).call(GroceriesAPI.addRecipe, AddRecipeToList(recipe: "tomato-lentil-soup"), user: "ada")
            for (host, method, fields) in declared {
                let peer = try RawPeer(connectingTo: host.boundEndpoints.requests)
                let body = try #require(bodies[method.name])
                try peer.send(
                    Envelope.requestFrames(RequestHeader(method: method.name, id: "r", session: TestSessions.token(for: "ada")), body: body))
                let frames = try #require(try await peer.receive(timeout: .seconds(30)))
                let error = try? MessagePackDecoder().decode(ServiceError.self, from: try Envelope.parseReply(frames).body)
                #expect(error?.code == .badRequest && fields.contains(error?.field ?? ""), "\(method.name): \(String(describing: error))")
            }
        }
    }

    @Test func aRecipeDraftIsDescribedFieldByField() throws {
        let stack = try StackFixture.make()
        let catalog = try stack.catalog.host.server.description(of: "catalog")
        let create = try #require(catalog.methods.first { $0.name == "recipes.create" })
        #expect(create.write && create.access == .user && create.lane == .standard)
        #expect(create.request == .object("RecipeDraft") && create.reply == .object("RecipeDetail"))
        let types = Dictionary(uniqueKeysWithValues: catalog.types.map { ($0.name, $0) })
        let draft = try #require(types["RecipeDraft"]?.fields)
        #expect(
            draft.map(\.name) == [
                "name", "summary", "servings", "prepMinutes", "cookMinutes", "ingredients", "steps", "equipment", "dishTypes", "link", "image",
                "notes", "variations", "tags", "photo", "removePhoto",
            ])
        #expect(draft.allSatisfy { !$0.required }, "every field of a draft may be left out")
        #expect(draft.first { $0.name == "ingredients" }?.shape == .array(of: .object("RecipeIngredient")))
        let line = try #require(types["RecipeIngredient"]?.fields)
        #expect(
            line.map { "\($0.name):\($0.shape):\($0.required)" } == [
                "ingredient:string:true", "quantity:float:true", "unit:MeasureUnit:true", "use:IngredientUse:false", "eatenShare:float:false",
            ])
        #expect(types["IngredientUse"]?.values == ["eaten", "frying", "discarded"])
        #expect(types["MeasureUnit"]?.values == MeasureUnit.allCases.map(\.rawValue))
        let step = try #require(types["RecipeStep"]?.fields)
        #expect(step.first { $0.name == "ingredients" }?.required == false, "a step's ingredients may be left out")
        let detail = try #require(types["RecipeDetail"]?.fields)
        #expect(detail.first { $0.name == "version" }?.shape == .int && detail.first { $0.name == "link" }?.required == false)

        let tracker = try stack.tracker.host.server.description(of: "tracker")
        let trackerTypes = Dictionary(uniqueKeysWithValues: tracker.types.map { ($0.name, $0) })
        #expect(trackerTypes["DiaryAdd"]?.fields?.first { $0.name == "date" }?.shape == .date)
        #expect(trackerTypes["JournalEntryDraft"]?.fields?.first { $0.name == "photo" }?.shape == .bytes)
        #expect(trackerTypes["JournalEntryDraft"]?.fields?.first { $0.name == "time" }?.shape == .time)
        #expect(trackerTypes["GlutenDay"]?.fields?.map(\.name) == ["date", "expectsGluten", "positive", "correct"])
    }

    /// Over the socket, to anyone who completed the handshake (no session needed).
    @Test func describeIsAnsweredOverTheWire() async throws {
        let stack = try StackFixture.make()
        try await withRunningServices(stack.hosts) { _ in
            for host in stack.hosts {
                let remote = try await stack.anyClient(SousService(rawValue: host.name)!).call(CommonAPI.describe, Empty())
                #expect(remote == (try host.server.description(of: host.name)))
                #expect(remote.methods.contains { $0.name == "describe" } && remote.protocolVersion == 3)
            }
        }
    }
}
