"""The one parsing rule of db/queries.sql, on the fixture the Go and Java readers share."""

import json

from bankbench import paths, queries

FIXTURE = paths.DB / "testdata"


def test_parse_cuts_the_shared_fixture() -> None:
    got = queries.parse((FIXTURE / "queries.sql").read_text())
    assert got == json.loads((FIXTURE / "queries.json").read_text())


def test_the_services_statements_are_read() -> None:
    stmts = queries.statements()
    assert set(stmts) == {"health", "create_client", "balance", "transfer"}
    assert stmts["balance"] == "SELECT balance FROM client WHERE id = $1"
