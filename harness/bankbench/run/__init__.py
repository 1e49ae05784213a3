"""A benchmark run: the runner drives one environment (environments/) level by level, with the
experiments besides the levels' load (experiments/), and writes results/runs/<run>/."""
