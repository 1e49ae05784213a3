"""db/queries.sql, the services' SQL, read by the rule the Go and Java readers follow too."""

from __future__ import annotations

from pathlib import Path

from bankbench import paths

MARKER = "-- name: "


def parse(text: str) -> dict[str, str]:
    """Statements by name: a line starting with "-- name: " opens a statement, which is the text
    up to the next such line, comments included, with surrounding white space trimmed. Text before
    the first marker belongs to no statement. db/testdata/queries.sql is the shared fixture."""
    stmts: dict[str, list[str]] = {}
    body: list[str] | None = None
    for line in text.split("\n"):
        if line.startswith(MARKER):
            body = stmts.setdefault(line.removeprefix(MARKER).strip(), [])
            body.clear()
        elif body is not None:
            body.append(line)
    return {name: "\n".join(lines).strip() for name, lines in stmts.items()}


def statements(path: Path = paths.QUERIES) -> dict[str, str]:
    return parse(path.read_text())
