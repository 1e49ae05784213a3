"""bankbench: run, check and report the Go-vs-Java bank benchmark.

The package's floors, in the order they import: tools (the machine) -> system (the services and
their database) -> load -> measure -> checks (the services checked outside a benchmark) ->
analyse (the figures of results/runs/) -> run (a benchmark run into results/runs/, its levels'
figures read with the analysis) -> publish (the report) -> commands (one module per verb; cli.py
picks it). A floor imports only from the floors before it and from the modules here, which every
floor reads: errors, paths, config, registry, runid. tests/test_imports.py holds the code to this
order.
"""
