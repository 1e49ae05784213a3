"""bankbench: run, check and report the Go-vs-Java bank benchmark.

The package's floors follow the data: tools (the machine) -> system (the services and their
database) -> load and measure -> checks and run (results/runs/) -> analyse -> publish (the report).
A floor imports only from the floors before it and from the modules here, which every floor
reads: errors, paths, config, registry. commands/ and cli.py sit on top: one module per verb.
"""
