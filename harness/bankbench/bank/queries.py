"""db/queries/, the services' SQL: one file per statement, read whole as the Go and Java readers do.

See db/queries/README.md and docs/api.md#data-and-sql-one-place-each."""

from bankbench import paths


def statements() -> dict[str, str]:
    """By name (<name>.sql): the whole text with comments, trimmed, as both services send it."""
    return {file.stem: file.read_text().strip() for file in sorted(paths.QUERIES.glob("*.sql"))}


def statement(name: str) -> str:
    """The named statement; a KeyError naming the folder when there is no such file."""
    try:
        return statements()[name]
    except KeyError:
        raise KeyError(f"no statement {name!r} in {paths.QUERIES}") from None
