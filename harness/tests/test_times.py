"""Every time stated for a make target is the same in every file: docs/target-times.toml holds
them (minutes on the reference machine), and each "~N min" or "about N minutes" that README.md,
CONTRIBUTING.md, docs/, the folders' READMEs or the Makefiles' comments and help texts give a make
target states that figure, and no other.

A time belongs to the nearest `make TARGET` before it in its sentence (a code line, a table cell);
without one, to what the line stands for: a help text's target, a table column headed `make
TARGET`, a row of the profile table (`bench PROFILE=<name>`)."""

from __future__ import annotations

import re
import tomllib

from bankbench import paths

TIMES_FILE = paths.ROOT / "docs" / "target-times.toml"
PAGES = sorted({paths.ROOT / "README.md", paths.ROOT / "CONTRIBUTING.md",
                *(paths.ROOT / "docs").glob("*.md"),
                *(page for page in paths.ROOT.glob("*/README.md")
                  if not page.parent.name.startswith(".") and page.parent != paths.RESULTS)})
MAKEFILES = [paths.ROOT / "Makefile", paths.ROOT / "infra" / "infra.mk"]

# "~4 min", "about 40 minutes", "about 3 to 5 minutes" (a range is stated as one, and fails).
TIME = re.compile(r"(?:~|\babout )(\d+(?:(?: to |-)\d+)?) ?min(?:ute)?s?\b")
# `make bench PROFILE=efficiency`; not "make capacity's" (a possessive names no command).
MAKE = re.compile(r"\bmake ([a-z][\w%-]*)((?: [A-Z][A-Z0-9_]*=[\w,.<>/-]+)*)(?![\w'-])")
SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z`\[(*])")
HELP = re.compile(r"^([a-z][\w%-]*):[^=\n]*## (.*)$")


def times() -> dict[str, int]:
    return tomllib.loads(TIMES_FILE.read_text())


def key(target: str, knobs: str) -> str:
    """What follows `make`, PROFILE=local (the default) left out."""
    return " ".join([target, *(k for k in knobs.split() if k != "PROFILE=local")])


def stated(text: str, implicit: str | None = None) -> list[tuple[str, str]]:
    """(make target, the figure stated) for each time in `text`: the nearest `make TARGET` before
    it, else `implicit`; a time with neither belongs to no target and is left out."""
    mentions = [(m.end(), key(m.group(1), m.group(2))) for m in MAKE.finditer(text)]
    found = []
    for time in TIME.finditer(text):
        before = [name for end, name in mentions if end <= time.start()]
        target = before[-1] if before else implicit
        if target:
            found.append((target, time.group(1)))
    return found


def cells(row: str) -> list[str]:
    return [cell.strip() for cell in row.strip().strip("|").split("|")]


def markdown_units(text: str) -> list[tuple[str | None, str]]:
    """(implicit target, text) of each unit a time can belong to: a code line, a table cell, a
    sentence of a paragraph or list item."""
    units: list[tuple[str | None, str]] = []
    lines, fenced, paragraph, table = text.splitlines(), False, [], []

    def flush() -> None:
        if " ".join(paragraph).strip():
            units.extend((None, s) for s in SENTENCE_END.split(" ".join(paragraph).strip()))
        paragraph.clear()
        if table:
            units.extend(table_units(table))
            table.clear()

    for line in lines:
        if line.startswith("```"):
            flush()
            fenced = not fenced
        elif fenced:
            units.append((None, line))
        elif line.startswith("|"):
            if paragraph:
                flush()
            table.append(line)
        elif line.startswith("#"):
            flush()
            units.append((None, line))
        elif not line.strip() or re.match(r"\s*(?:[-*] |\d+\. )", line):
            flush()
            paragraph.append(line)
        else:
            if table:
                flush()
            paragraph.append(line)
    flush()
    return units


def table_units(rows: list[str]) -> list[tuple[str | None, str]]:
    """A cell's time belongs to its column's `make TARGET` (the header's), or in the profile table
    to its row's profile."""
    header, body = cells(rows[0]), [cells(row) for row in rows[2:]]
    columns = [MAKE.search(cell) for cell in header]
    units = []
    for row in body:
        profile = re.match(r"`([\w-]+)`", row[0]) if header[0] == "profile" else None
        for i, cell in enumerate(row):
            column = columns[i] if i < len(columns) else None
            implicit = key(column.group(1), column.group(2)) if column \
                else key("bench", f"PROFILE={profile.group(1)}") if profile else None
            units.append((implicit, cell))
    return units


def makefile_units(text: str) -> list[tuple[str | None, str]]:
    """A help text (`target: ... ## text`) belongs to its target whatever it names; comment lines
    are prose."""
    units, comment = [], []
    for line in [*text.splitlines(), ""]:
        if line.startswith("#"):
            comment.append(line.lstrip("#").strip())
            continue
        if comment:
            units.extend((None, s) for s in SENTENCE_END.split(" ".join(comment)))
            comment.clear()
        if help_text := HELP.match(line):
            units.append((help_text.group(1), MAKE.sub("", help_text.group(2))))
    return units


def mentions() -> list[tuple[str, str, str, str]]:
    """(file, target, figure stated, the text around it) of every stated time."""
    found = []
    for files, units in [(PAGES, markdown_units), (MAKEFILES, makefile_units)]:
        for path in files:
            for implicit, text in units(path.read_text()):
                found.extend((str(path.relative_to(paths.ROOT)), target, figure, text.strip()[:100])
                             for target, figure in stated(text, implicit))
    return found


def test_the_times_file_holds_minutes() -> None:
    assert times() and all(isinstance(m, int) and m > 0 for m in times().values())


def test_every_stated_time_is_the_figure_of_the_times_file() -> None:
    one_place = {target: str(minutes) for target, minutes in times().items()}
    wrong = [m for m in mentions() if one_place.get(m[1]) != m[2]]
    assert wrong == [], f"the figures of {TIMES_FILE.relative_to(paths.ROOT)}: {one_place}"


def test_every_figure_of_the_times_file_is_stated_somewhere() -> None:
    found = mentions()
    assert {"check", "test", "bench"} <= {target for file, target, _, _ in found
                                          if file == "README.md"}
    assert sorted(set(times()) - {target for _, target, _, _ in found}) == []


def test_the_parser_finds_times_as_they_are_written() -> None:
    assert stated("make check    # before pushing (~4 min warm)") == [("check", "4")]
    assert stated("up to ~8 min a service, as make capacity's probes") == []
    assert stated("make bench PROFILE=efficiency   # warm (~55 min)") == \
        [("bench PROFILE=efficiency", "55")]
    assert stated("`make bench PROFILE=local` (about 45 minutes)") == [("bench", "45")]
    assert stated("about 3 to 5 minutes", "check") == [("check", "3 to 5")]
    readme = "`make test`, every suite\n  (~30 minutes). A sentence of its own, ~5 min.\n"
    assert [stated(text, implicit) for implicit, text in markdown_units(readme)] == \
        [[("test", "30")], []]
    table = "| | `make check` | `make test` |\n|---|---|---|\n" \
            "| time | about 4 minutes | ~40 min |\n"
    assert [stated(text, implicit) for implicit, text in markdown_units(table)] == \
        [[], [("check", "4")], [("test", "40")]]
    profiles = "| profile | what |\n|---|---|\n| `pool` | 36 levels, about 40 min |\n"
    assert [t for i, text in markdown_units(profiles) for t in stated(text, i)] == \
        [("bench PROFILE=pool", "40")]
    makefile = "# `make check` (before pushing, ~4 min) and\n# more.\n" \
               "sensitivity: ## the verdict: make bench PROFILE=placement (~80 min)\n"
    assert [t for i, text in makefile_units(makefile) for t in stated(text, i)] == \
        [("check", "4"), ("sensitivity", "80")]

