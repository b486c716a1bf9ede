public import Foundation
public import SousFetch
import SousRuntime
import SousSchema
import SousWire

/// Whether and how the tracker looks unknown barcodes up in Open Food Facts.
public struct OpenFoodFactsSettings: Sendable {
    public var enabled: Bool
    /// The API's origin, e.g. "https://world.openfoodfacts.org" (API v2 paths are added).
    public var baseURL: String
    /// The operator's contact, sent in the User-Agent as Open Food Facts asks of API clients.
    public var contact: String?
    /// At most this many lookups a minute leave the service; more wait their turn.
    public var lookupsPerMinute: Int
    /// The minute they are counted in (tests shorten it).
    public var minute: Duration
    /// A product looked up longer ago than this is looked up again (and the stored one kept
    /// when that fails).
    public var refreshAfter: Duration
    public var policy: FetchPolicy

    public init(
        enabled: Bool, baseURL: String = "https://world.openfoodfacts.org", contact: String? = nil, lookupsPerMinute: Int = 10,
        refreshAfter: Duration = .seconds(30 * 24 * 3600), policy: FetchPolicy = FetchPolicy(), minute: Duration = .seconds(60)
    ) {
        self.minute = minute
        self.enabled = enabled
        self.baseURL = baseURL
        self.contact = contact
        self.lookupsPerMinute = lookupsPerMinute
        self.refreshAfter = refreshAfter
        self.policy = policy
    }

    public static let disabled = OpenFoodFactsSettings(enabled: false)

    /// `SOUS_OFF` (on or off, default on), `SOUS_OFF_URL`, `SOUS_OFF_CONTACT`, and
    /// `SOUS_FETCH_ALLOW` for the addresses it may reach.
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws -> OpenFoodFactsSettings {
        let switched = (environment["SOUS_OFF"] ?? "on").lowercased()
        guard ["on", "off"].contains(switched) else {
            throw ConfigurationError(variable: "SOUS_OFF", message: "on or off, not \"\(switched)\"")
        }
        var settings = OpenFoodFactsSettings(enabled: switched == "on", policy: try FetchPolicy.fromEnvironment(environment))
        if let base = environment["SOUS_OFF_URL"], !base.isEmpty {
            guard base.hasPrefix("http://") || base.hasPrefix("https://"), URL(string: base)?.host != nil else {
                throw ConfigurationError(variable: "SOUS_OFF_URL", message: "an http(s) address, not \"\(base)\"")
            }
            settings.baseURL = base
        }
        settings.contact = environment["SOUS_OFF_CONTACT"].flatMap { $0.isEmpty ? nil : $0 }
        return settings
    }
}

/// Open Food Facts' API v2 for the tracker: one product by barcode, paced to the settings'
/// lookups a minute (one lookup for many callers asking the same code at once), read into a
/// ``Product`` only when its name and nutrition per 100 g are there and possible.
final class OpenFoodFacts: Sendable {
    let settings: OpenFoodFactsSettings
    private let fetcher: WebFetcher
    private let pacer: LookupPacer

    init(settings: OpenFoodFactsSettings) {
        self.settings = settings
        var policy = settings.policy
        policy.maxBytes = 1_000_000
        policy.userAgent = "Sous/1.0 (self-hosted meal planner\(settings.contact.map { "; \($0)" } ?? ""))"
        fetcher = WebFetcher(policy: policy)
        pacer = LookupPacer(perMinute: max(settings.lookupsPerMinute, 1), minute: settings.minute)
    }

    /// The product Open Food Facts has for `code`; nil when it has none. Unavailable when it
    /// cannot be reached; notFound when what it has cannot be used (no name, impossible
    /// nutrition), saying so.
    func lookup(_ code: String) async throws(ServiceError) -> Product? {
        let outcome = await pacer.once(code) { () async -> Result<Product?, ServiceError> in
            do throws(ServiceError) { return .success(try await self.fetch(code)) } catch { return .failure(error) }
        }
        return try outcome.get()
    }

    private func fetch(_ code: String) async throws(ServiceError) -> Product? {
        let base = settings.baseURL.hasSuffix("/") ? String(settings.baseURL.dropLast()) : settings.baseURL
        let address = "\(base)/api/v2/product/\(code).json?fields=code,product_name,brands,quantity,nutriments,allergens_tags"
        let answer: FetchedResource
        do {
            answer = try await fetcher.fetch(address, accept: "application/json")
        } catch .status(404) {
            return nil
        } catch {
            throw .unavailable("Open Food Facts could not be reached to look up \(code) (\(error)); try again later")
        }
        return try Self.product(from: answer.body, code: code)
    }

    /// A v2 answer (`{"status": 1, "product": {…}}`) as a product, or nil for `status` 0.
    static func product(from body: Data, code: String) throws(ServiceError) -> Product? {
        guard let root = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else {
            throw .unavailable("Open Food Facts answered something that is not its JSON for \(code)")
        }
        guard (root["status"] as? NSNumber)?.intValue == 1, let found = root["product"] as? [String: Any] else { return nil }
        func text(_ key: String, _ limit: Int) -> String? {
            guard let value = found[key] as? String else { return nil }
            let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines).filter { !$0.isNewline && $0 != "\u{0}" }
            return trimmed.isEmpty ? nil : String(trimmed.prefix(limit))
        }
        guard let name = text("product_name", 200) else {
            throw .notFound("Open Food Facts knows \(code) but not its name, so it cannot be logged; add it yourself", field: "code")
        }
        let nutriments = found["nutriments"] as? [String: Any] ?? [:]
        func number(_ key: String) -> Double? {
            if let value = nutriments[key] as? NSNumber { return value.doubleValue }
            if let value = nutriments[key] as? String { return Double(value) }
            return nil
        }
        let kcal = number("energy-kcal_100g") ?? number("energy-kj_100g").map { $0 / 4.184 } ?? number("energy_100g").map { $0 / 4.184 }
        let figures = [
            ("kcal", kcal), ("carbohydrates", number("carbohydrates_100g")), ("protein", number("proteins_100g")), ("fat", number("fat_100g")),
        ]
        for (what, value) in figures {
            guard let value else {
                throw .notFound(
                    "Open Food Facts has no \(what) per 100 g for \(code) (\(name)), so it cannot be logged; add it yourself", field: "code")
            }
            guard value.isFinite, value >= 0, value <= (what == "kcal" ? 900 : 100) else {
                throw .notFound(
                    "Open Food Facts gives \(code) (\(name)) an impossible \(what) per 100 g (\(value)), so it is not used; add it yourself",
                    field: "code")
            }
        }
        let macros = Macros(kcal: kcal!, carbohydrates: number("carbohydrates_100g")!, protein: number("proteins_100g")!, fat: number("fat_100g")!)
        guard macros.carbohydrates + macros.protein + macros.fat <= 100 + NutritionPlausibility.roundingGrams else {
            throw .notFound(
                "Open Food Facts gives \(code) (\(name)) more than 100 g of carbohydrates, protein and fat per 100 g, so it is not used",
                field: "code")
        }
        let allergens = (found["allergens_tags"] as? [String] ?? []).filter { tag in
            tag.count <= 60 && tag.allSatisfy { $0.isLetter || $0.isNumber || $0 == ":" || $0 == "-" }
        }
        return Product(
            code: code, name: name, brand: text("brands", 100), quantity: text("quantity", 50), per100g: macros,
            allergens: Array(allergens.prefix(30)))
    }
}

/// Paces lookups to `perMinute` starts in any minute (beyond that, callers wait their turn),
/// and runs one lookup for every caller asking the same code while it is under way.
actor LookupPacer {
    private let perMinute: Int
    private let minute: Duration
    private var starts: [ContinuousClock.Instant] = []
    private var running: [String: Task<Result<Product?, ServiceError>, Never>] = [:]

    init(perMinute: Int, minute: Duration) {
        self.perMinute = perMinute
        self.minute = minute
    }

    func once(
        _ code: String, _ lookup: @escaping @Sendable () async -> Result<Product?, ServiceError>
    ) async -> Result<Product?, ServiceError> {
        if let task = running[code] { return await task.value }
        let task = Task { [self] in
            await turn()
            return await lookup()
        }
        running[code] = task
        let result = await task.value
        running[code] = nil
        return result
    }

    /// Waits until a lookup may start, and counts it.
    private func turn() async {
        let clock = ContinuousClock()
        while true {
            let now = clock.now
            starts.removeAll { now - $0 >= minute }
            if starts.count < perMinute {
                starts.append(now)
                return
            }
            try? await Task.sleep(until: starts[0].advanced(by: minute), clock: clock)
        }
    }
}
