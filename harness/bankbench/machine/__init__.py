"""The machine's tools, before anything runs: doctor, the JDK, PostgreSQL 15, CPU placement.

See docs/setup.md#prerequisites."""
