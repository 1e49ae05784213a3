"""What a run does besides its levels' load: calibration, warm-up, chaos, make capacity, tune.

See docs/benchmarks.md#how-a-level-runs."""
