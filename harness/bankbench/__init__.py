"""bankbench: run, check and report the Go-vs-Java bank benchmark.

The package's floors, in the order they import: machine (its tools) -> bank (the services under
test and their database) -> load -> measure -> checks (the services checked outside a benchmark) ->
results (the run folder, read and written there alone: it stores, it computes nothing) -> analyse
(figures and statistics of the run folder's files) -> run (a benchmark run, which writes through
results and reads analyse's figures of its own levels to choose its next probe) -> publish (the
report: its tables and charts) -> commands (one module per verb). analyse never imports run. A
floor imports only from the floors before it and from the modules here, which every floor reads:
errors, paths, config, registry, runid. tests/test_imports.py holds the code to this order.

See harness/README.md.
"""
