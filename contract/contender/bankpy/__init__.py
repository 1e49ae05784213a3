"""bank-python: the bankbench bank API (api/openapi.yaml) in Python, a contender kept under the
tests only (contract/contender/README.md). Standard library HTTP, psycopg 3 with psycopg_pool,
prometheus_client; the statements of db/queries/ sent verbatim."""
