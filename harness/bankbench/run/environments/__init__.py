"""Where a benchmark runs (interface): this machine (native, compose, sharing local) or AWS ECS.

See docs/benchmarks.md#how-a-level-runs, docs/benchmarks.md#envcompose and docs/aws.md."""
