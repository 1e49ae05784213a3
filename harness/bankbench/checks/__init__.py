"""Checks of the services outside the benchmark: the same database work per request (verify),
property-based API tests (fuzz), many slow connections, and the quick wrk figure."""
