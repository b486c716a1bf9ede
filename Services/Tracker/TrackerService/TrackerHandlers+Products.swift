import Foundation
import SousRuntime
import SousSchema
import SousWire

// MARK: Products

extension TrackerHandlers {
    func product(_ request: BarcodeLookup, user: String, context: RequestContext) throws -> Product {
        try TrackerValidation.barcode(request.code)
        guard let product = try store.product(code: request.code, user: user) else {
            throw ServiceError.notFound("no product with barcode \(request.code)", field: "code")
        }
        return product
    }

    func addProduct(_ request: Product, user: String, context: RequestContext) throws -> Product {
        try TrackerValidation.product(request, field: "")
        try store.addOwnProduct(request, user: user)
        return request
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
