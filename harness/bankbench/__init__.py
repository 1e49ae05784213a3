"""bankbench: run, check and report the Go-vs-Java bank benchmark.

The package's floors, in the order they import: machine (its tools) -> bank (the services under
test and their database) -> load -> measure -> checks (the services checked outside a benchmark) ->
results (the run folder, read and written there alone) -> run -> analyse (figures of the run
folders) -> publish (the report: its tables and charts) -> commands (one module per verb). run
and analyse never import each other. A floor imports only from the floors before it and from the
modules here, which every floor reads: errors, paths, config, registry, runid, estimates,
capacity_model, duel_stats. tests/test_imports.py holds the code to this order.

See harness/README.md.
"""
