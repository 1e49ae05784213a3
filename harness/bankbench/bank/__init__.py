"""The bank under test: the services as processes, AOT cache, SQL, money check and hot accounts.

See harness/README.md and docs/api.md#data-and-sql-one-place-each."""
