"""The machine's tools, before anything runs: the prerequisites (`make doctor`), the one JDK,
PostgreSQL 15's binaries and throwaway clusters, and the CPUs each process may use."""
