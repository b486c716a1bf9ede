import Foundation
public import SousFetch
import SousInterchange
import SousSchema
import SousWire

/// Reads recipes from a web page for `recipes.import` with a `url`: fetches it under the
/// catalog's ``FetchPolicy``, reads its JSON-LD or microdata (``RecipeWebPage``), and fetches each
/// recipe's first image under the same guards, kept as its photo when the bytes are an image.
public struct RecipePages: Sendable {
    let fetcher: WebFetcher

    public init(policy: FetchPolicy) { fetcher = WebFetcher(policy: policy) }

    func recipes(at address: String) async throws(ServiceError) -> (recipes: [SchemaRecipe], photos: [String: Data]) {
        let page: FetchedResource
        do {
            page = try await fetcher.fetch(address, accept: "text/html,application/xhtml+xml,application/ld+json;q=0.9,*/*;q=0.5")
        } catch {
            throw Self.serviceError(error, what: "the page")
        }
        let text = String(data: page.body, encoding: .utf8) ?? String(decoding: page.body, as: Unicode.ASCII.self)
        var recipes: [SchemaRecipe]
        do {
            let type = page.contentType?.lowercased() ?? ""
            recipes =
                type.contains("json") ? try SchemaRecipeDocument.recipes(from: page.body) : try RecipeWebPage.recipes(inHTML: text)
        } catch {
            throw .badRequest("the page at \(page.url.absoluteString) is no recipe we can read: \(error.message) at \(error.path)", field: "url")
        }
        var photos: [String: Data] = [:]
        for index in recipes.indices {
            // Addresses in the page are relative to it.
            recipes[index].imageURLs = recipes[index].imageURLs.map { Self.absolute($0, from: page.url) }
            if recipes[index].url == nil { recipes[index].url = page.url.absoluteString }
            guard let image = recipes[index].imageURLs.first(where: { $0.hasPrefix("http://") || $0.hasPrefix("https://") }),
                photos[image] == nil
            else { continue }
            if let photo = try? await fetcher.fetch(image, accept: "image/jpeg,image/png,image/webp,image/heic"),
                photo.body.count <= RecipeLimits.maxPhotoBytes, ImageType(of: photo.body) != nil
            {
                photos[image] = photo.body
            }
        }
        return (recipes, photos)
    }

    static func absolute(_ address: String, from page: URL) -> String {
        guard !address.hasPrefix("data:"), URL(string: address)?.scheme == nil else { return address }
        return URL(string: address, relativeTo: page)?.absoluteString ?? address
    }

    /// A failed fetch as the caller's error on `url`: unavailable when the site may answer later.
    static func serviceError(_ error: FetchError, what: String) -> ServiceError {
        switch error {
        case .timedOut, .unreachable:
            ServiceError(.unavailable, "\(what) could not be fetched: \(error)", field: "url")
        case .status(let code) where code >= 500:
            ServiceError(.unavailable, "\(what) could not be fetched: \(error)", field: "url")
        default:
            .badRequest("\(what) could not be fetched: \(error)", field: "url")
        }
    }
}
