"""The verdict is written once, by hand, in results/verdict.md, and checked against the data here:
every figure in it is the text of a link to the section of the generated report (or the file) that
gives it, and a figure that section does not give fails. README.md links to the verdict and states
no result of its own: each of its figures is such a link too, a time test_times checks, or a name
(a version, a status code) listed below. A figure docs/ gives as a link's text is checked the
same way. The report is itself checked against the runs byte for byte (test_published_report),
so a figure here rests on the runs.

What counts as a figure: every number in the prose, outside code, HTML comments and the time
statements of test_times; a link's figures must each be found, as numbers (1,490 = 1490 = 1490.0),
in the section its anchor names, the report's copy of this verdict left out; where a service's name
stands just before the link ("go [4](...)"), on a line of that section that names the service."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from test_times import TIME

from bankbench import paths
from bankbench.publish import report

VERDICT = paths.RESULTS / "verdict.md"
README = paths.ROOT / "README.md"
DOCS = sorted((paths.ROOT / "docs").glob("*.md"))
LINK = re.compile(r"\[([^\]]*)\]\(([^)\s]+)\)")
NUMBER = re.compile(r"(?<![\w.,-])\d[\d,]*(?:\.\d+)?")
UNCHECKED = re.compile(r"```.*?```|`[^`\n]*`|<!--.*?-->", re.DOTALL)  # code and comments
# Numbers that are names, not results (a version, a status code), with the words around each.
NAMES = ("503s", "Spring Boot 4", "Helidon SE 4", "Debian 12", "Debian 13", "JDK 25", "Go 1.26", "PostgreSQL 15",
         "Java 25", "4xx", "503", "500", "200 null", "10k users", "m5", "c5d")
SERVICE_BEFORE = re.compile(r"(?<![\w-])(go|java-virtual|java|helidon)\s+$")  # "go [4](...)": go's figure


def numbers(text: str) -> list[float]:
    return [float(n.replace(",", "")) for n in NUMBER.findall(text)]


def sections(path: Path) -> dict[str, str]:
    """Each heading's anchor and the text under it, to the next heading of its level or above; the
    report's copy of the verdict (between its markers) left out."""
    text = re.sub(rf"{re.escape(report.VERDICT_START)}.*?{re.escape(report.VERDICT_END)}", "",
                  path.read_text(), flags=re.DOTALL)
    found, stack = {}, []
    for line in text.splitlines():
        if m := re.match(r"(#+) (.*)", line):
            level = len(m.group(1))
            stack = [(lvl, name) for lvl, name in stack if lvl < level] + [(level, report.anchor(m.group(2)))]
            found.setdefault(stack[-1][1], "")
        for _, name in stack:
            found[name] += line + "\n"
    return found


def source(page: Path, target: str) -> str:
    """The text a link's figures must be in: the section its anchor names, or the whole of a file
    linked without one (a report page must name its section)."""
    path, _, anchor = target.partition("#")
    file = (page.parent / path).resolve()
    assert file.is_file(), f"{target}: no such file"
    if file.suffix != ".md":
        return file.read_text()
    assert anchor or file != report.DEFAULT_OUT.resolve() / "README.md", f"{target}: name the report's section"
    if not anchor:
        return file.read_text()
    found = sections(file)
    assert anchor in found, f"{target}: no such section"
    return found[anchor]


def unchecked_figures(page: Path, names: tuple[str, ...] = ()) -> list[str]:
    """The figures of `page` outside links, times and `names`, with the words around each."""
    text = UNCHECKED.sub(" ", page.read_text())
    for pattern in (LINK, TIME, *(re.compile(re.escape(name)) for name in names)):
        text = pattern.sub(" ", text)
    return [text[max(m.start() - 30, 0):m.end() + 10].replace("\n", " ") for m in NUMBER.finditer(text)]


def given(section: str, service: str | None) -> set[float]:
    """The numbers of `section`, or of its lines that name `service` (java is not java-virtual)."""
    named = re.compile(rf"(?<![\w-]){re.escape(service)}(?![\w-])") if service else None
    return {n for line in section.splitlines() if named is None or named.search(line) for n in numbers(line)}


def wrong_links(page: Path) -> list[str]:
    """Each link of `page` with a figure its section does not give (for the service named just
    before it, where one is), and the figure."""
    text = UNCHECKED.sub(" ", page.read_text())
    wrong = []
    for m in LINK.finditer(text):
        told, target = m.groups()
        if target.startswith(("http", "#")) or not numbers(told):
            continue
        service = found.group(1) if (found := SERVICE_BEFORE.search(text[max(m.start() - 20, 0):m.start()])) else None
        shown = given(source(page, target), service)
        wrong += [f"[{told}]({target}): {n:g}" for n in numbers(told) if n not in shown]
    return wrong


@pytest.mark.parametrize("page", [VERDICT, README, *DOCS], ids=lambda p: p.name)
def test_every_figure_is_one_the_data_gives(page: Path) -> None:
    """Of docs/ too: a figure a page gives as a link's text is one its section gives."""
    assert wrong_links(page) == []


def test_the_verdict_states_no_figure_outside_a_link() -> None:
    assert unchecked_figures(VERDICT, NAMES) == []


def test_readme_states_no_result_of_its_own() -> None:
    assert unchecked_figures(README, NAMES) == []
    assert "(results/verdict.md)" in README.read_text()


def test_a_figure_the_section_does_not_give_fails(tmp_path: Path) -> None:
    (tmp_path / "report").mkdir()
    report_page = "# R\n\n## Capacity\n\ngo 407 [83-2,010] it/s\n\n## Memory\n\n56 MB\n"
    (tmp_path / "report" / "README.md").write_text(report_page)
    page = tmp_path / "verdict.md"
    page.write_text("Go held [407 (83-2,010)](report/README.md#capacity), [56 MB](report/README.md#capacity) and "
                    "[1,490](report/README.md#memory); `GOGC=400` is code.\n")
    assert wrong_links(page) == ["[56 MB](report/README.md#capacity): 56", "[1,490](report/README.md#memory): 1490"]
    page.write_text("Java held [407](report/README.md#capacity), go [407](report/README.md#capacity), "
                    "java [407](report/README.md#capacity).\n")
    assert wrong_links(page) == ["[407](report/README.md#capacity): 407"]  # the section gives go's 407, not java's
    page.write_text("Go held 407 [it/s](report/README.md#capacity).\n")
    assert len(unchecked_figures(page)) == 1


def test_the_report_shows_the_verdict() -> None:
    shown = (report.DEFAULT_OUT / "README.md").read_text()
    assert report.verdict_block(report.DEFAULT_OUT) in shown
