"""Where a benchmark runs (interface): this machine (native, compose, sharing local) or AWS ECS."""
