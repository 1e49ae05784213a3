"""A benchmark run: the runner over one environment (environments/), with experiments/ besides.

See docs/benchmarks.md#how-a-level-runs."""
