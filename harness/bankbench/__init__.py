"""bankbench: run, check and report the Go-vs-Java bank benchmark."""
