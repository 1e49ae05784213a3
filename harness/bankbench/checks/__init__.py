"""Checks of the services outside the benchmark: verify, fuzz, connections, quick.

See harness/README.md."""
