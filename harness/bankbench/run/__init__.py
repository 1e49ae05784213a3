"""A benchmark run: the runner over one environment (environments/), with experiments/ besides."""
