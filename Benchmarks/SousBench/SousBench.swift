import ArgumentParser

/// Benchmarks whose numbers go in docs/BENCHMARKS.md. Build with `-c release` and pin with
/// `taskset -c 0` for latency (see docs/BENCHMARKS.md for the exact commands).
@main
struct SousBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sous-bench",
        abstract: "Measure Sous: request/reply latency against raw libzmq, codec cost against JSON, and each service's own workload.",
        subcommands: [
            RPCBenchmark.self, SecurityBenchmark.self, CodecBenchmark.self, CatalogBenchmark.self, PlannerBenchmark.self, GroceriesBenchmark.self,
            TrackerBenchmark.self, NotifierBenchmark.self, ChannelsBenchmark.self, HardeningBenchmark.self, ThroughputBenchmark.self,
            HouseholdsBenchmark.self, KitchenBenchmark.self,
            ReplicaBenchmark.self, IngredientLinesCommand.self, FoodDataBenchmark.self, RecoveryBenchmark.self,
            RawEchoServer.self,
        ]
    )
}
