"""What is measured while a level runs, beside the load generator's samples.

The processes' CPU and memory (resources), the service's /metrics (scrape), CPU flame graphs, the
manifest of what ran where.

See docs/benchmarks.md#how-a-level-runs and docs/benchmarks.md#inside-the-services."""
