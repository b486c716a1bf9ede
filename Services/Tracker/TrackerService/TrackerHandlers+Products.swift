import Foundation
import Logging
import SousRuntime
import SousSchema
import SousWire

// MARK: Products

extension TrackerHandlers {
    func product(_ request: BarcodeLookup, user: String, context: RequestContext) async throws -> Product {
        try TrackerValidation.barcode(request.code)
        return try await findProduct(request.code, user: user, field: "code", context: context)
    }

    /// The product of `code` for `user`: their own, the shared one, or, for a code not known
    /// here (or looked up more than 30 days ago), what Open Food Facts has, kept for next time.
    /// When Open Food Facts cannot be reached, a product looked up before is still used.
    func findProduct(_ code: String, user: String, field: String, context: RequestContext) async throws -> Product {
        let known = try store.product(code: code, user: user)
        let stale = known.map { product in
            product.source == ProductRecord.openFoodFacts
                && (product.fetchedAt.map { clock.now.timeIntervalSince($0) > Double(openFoodFacts.settings.refreshAfter.components.seconds) } ?? true)
        }
        if let known, stale != true { return known }
        guard openFoodFacts.settings.enabled else {
            if let known { return known }
            throw ServiceError.notFound("no product with barcode \(code) (looking products up online is switched off here)", field: field)
        }
        do {
            guard var found = try await openFoodFacts.lookup(code) else {
                throw ServiceError.notFound("no product with barcode \(code), here or in Open Food Facts", field: field)
            }
            try TrackerValidation.product(found, field: "")
            let now = clock.now
            try store.keepLookedUp(found, at: now)
            found.source = ProductRecord.openFoodFacts
            found.fetchedAt = now
            return found
        } catch let error as ServiceError where error.code == .unavailable && known != nil {
            context.logger.warning("Open Food Facts could not refresh a product", metadata: ["code": "\(code)", "error": "\(error.message)"])
            return known!
        } catch let error as ServiceError {
            // About the barcode the caller gave, under the name they gave it.
            throw ServiceError(error.code, error.message, field: field)
        }
    }

    func addProduct(_ request: Product, user: String, context: RequestContext) throws -> Product {
        try TrackerValidation.product(request, field: "")
        var own = request
        own.source = "yours"
        own.fetchedAt = nil
        try store.addOwnProduct(own, user: user)
        return own
    }

    func importProducts(_ request: ProductImport, context: RequestContext) throws -> ProductImportResult {
        guard request.products.count <= 1000 else { throw ServiceError.badRequest("at most 1000 products per call", field: "products") }
        for (index, product) in request.products.enumerated() {
            try TrackerValidation.product(product, field: "products.\(index)")
        }
        let source = request.source.isEmpty ? "import" : String(request.source.prefix(100))
        let result = try store.upsert(request.products, source: source)
        return result
    }
}
