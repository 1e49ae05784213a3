"""db/queries/, the services' SQL: one file per statement, read whole as the Go and Java readers do."""

from __future__ import annotations

from pathlib import Path

from bankbench import paths


def statements(folder: Path = paths.QUERIES) -> dict[str, str]:
    """Statements by name: each file <name>.sql of the folder, its whole text trimmed of
    surrounding white space (comments included), the text both services send."""
    return {file.stem: file.read_text().strip() for file in sorted(folder.glob("*.sql"))}


def statement(name: str, folder: Path = paths.QUERIES) -> str:
    """The named statement; a KeyError naming the folder when there is no such file."""
    try:
        return statements(folder)[name]
    except KeyError:
        raise KeyError(f"no statement {name!r} in {folder}") from None
