"""db/queries/ read as the Go and Java readers read it: each file whole, trimmed."""

import pytest

from bankbench import paths
from bankbench.bank import queries


def test_every_file_is_read_whole() -> None:
    files = sorted(paths.QUERIES.glob("*.sql"))
    # The statements the services run; an empty folder would pass the rest.
    assert [f.stem for f in files] == ["balance", "create_client", "health", "transfer"]
    stmts = queries.statements()
    assert stmts == {f.stem: f.read_text().strip() for f in files}
    for f in files:
        assert queries.statement(f.stem) == f.read_text().strip()
    assert stmts["balance"] == "SELECT balance FROM client WHERE id = $1"


@pytest.mark.parametrize("name", ["nope", "../schema", ""])
def test_an_unknown_name_fails(name: str) -> None:
    with pytest.raises(KeyError, match="no statement"):
        queries.statement(name)
