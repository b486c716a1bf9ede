import Foundation
public import SousSchema

/// The sample products the tracker ships (`Seed/products.json`, written by
/// `Services/Tracker/Scripts/make_products.py`): made-up brands, in-store EAN-13 codes,
/// USDA SR28 nutrition per 100 g.
public struct ProductSeed: Decodable, Sendable {
    /// Raised when the file changes, so running trackers load it again.
    public var version: Int
    public var products: [Product]

    /// The file bundled with the library.
    public static func bundled() throws -> ProductSeed {
        guard let url = Bundle.module.url(forResource: "products", withExtension: "json", subdirectory: "Seed") else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSLocalizedDescriptionKey: "products.json missing from the tracker's resources"])
        }
        return try JSONDecoder().decode(ProductSeed.self, from: Data(contentsOf: url))
    }
}
