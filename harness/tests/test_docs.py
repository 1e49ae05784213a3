"""The README fits on a few screens and the rest lives in docs/, one page per subject, with nothing
lost: every make target and every knob of the Makefile is named in one of them, every docs/ page is
linked from the README once, and every relative link (of the README, docs/, the results' READMEs,
the report's pages and every other page of the tree) leads to a file (and heading) that exists."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bankbench import paths

README = paths.ROOT / "README.md"
DOCS = sorted((paths.ROOT / "docs").glob("*.md"))
# The results' READMEs (the report's index among them) and the report's pages: their links too.
RESULTS_PAGES = sorted([*paths.RESULTS.glob("*/README.md"), *paths.RESULTS.glob("report/runs/*.md")])
# Every other page of the tree: the folders' READMEs (harness/, bank-*/, contract/, infra/ ...),
# CONTRIBUTING.md, results/LAYOUT.md, api/metrics.md. Not what a build, a run or a tool writes
# (hidden folders, target/, the runs' own pages) nor the tests' fixtures.
OTHER_PAGES = sorted(
    page for page in paths.ROOT.glob("**/*.md")
    if not any(part.startswith(".") or part == "target" for part in page.relative_to(paths.ROOT).parts)
    and not page.is_relative_to(paths.RESULTS / "runs") and not page.is_relative_to(paths.ROOT / "harness" / "tests")
    and page not in {README, *DOCS, *RESULTS_PAGES})
MAKEFILES = [paths.ROOT / "Makefile", paths.ROOT / "infra" / "infra.mk"]
MAKE_BUILTINS = {"MAKE", "MAKEFILE_LIST", "SHELL"}
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def makefile_text() -> str:
    return "\n".join(path.read_text() for path in MAKEFILES)


def targets(text: str) -> set[str]:
    """The targets with `## ` help text and those of the .PHONY lists."""
    helped = re.findall(r"^([a-z][\w%-]*):[^=\n]*## ", text, re.MULTILINE)
    phony = re.findall(r"^\.PHONY:((?:.*\\\n)*.*)", text, re.MULTILINE)
    return set(helped) | {name for block in phony for name in block.replace("\\", " ").split()}


def knobs(text: str) -> set[str]:
    """The variables a user sets: those the Makefile reads without assigning them, those with a
    default (`?=`), and every NAME= its comments and help texts mention."""
    read = set(re.findall(r"\$\(([A-Z][A-Z0-9_]*)\)", text))
    assigned = set(re.findall(r"^([A-Z][A-Z0-9_]*)\s*:?=", text, re.MULTILINE))
    defaults = set(re.findall(r"^(?:export\s+)?([A-Z][A-Z0-9_]*)\s*\?=", text, re.MULTILINE))
    notes = " ".join(re.findall(r"(?:^#|## )(.*)", text, re.MULTILINE))
    mentioned = set(re.findall(r"(?<![\w-])([A-Z][A-Z0-9_]*)=", notes))
    header = re.search(r"^# Knobs: (.*?)\(see", text, re.MULTILINE | re.DOTALL)
    listed = set(re.findall(r"\b([A-Z][A-Z0-9_]{2,})\b", header.group(1)))
    return (read - assigned - MAKE_BUILTINS) | defaults | mentioned | listed


def docs_text() -> str:
    return "\n".join(path.read_text() for path in [README, *DOCS])


def named_target(target: str, text: str) -> bool:
    """`make TARGET` or `TARGET` in code; a pattern rule's % stands for any name (run-go, bench-<name>)."""
    name = re.escape(target).replace("%", r"[\w<>-]+")
    return re.search(rf"(?:\bmake |`){name}(?![\w-])", text) is not None


def named_knob(knob: str, text: str) -> bool:
    """KNOB= or `KNOB` (a bare word would find A and B everywhere)."""
    return re.search(rf"(?<![\w-])(?<!\$\(){knob}(?=[=`])", text) is not None


def test_the_readme_fits() -> None:
    assert len(README.read_text().splitlines()) <= 250


def test_every_make_target_is_named_in_the_readme_or_docs() -> None:
    text, found = docs_text(), targets(makefile_text())
    assert {"bench", "test", "check", "run-%", "aws-bench"} <= found  # the parse still finds them
    assert sorted(t for t in found if not named_target(t, text)) == []


def test_every_knob_of_the_makefile_is_named_in_the_readme_or_docs() -> None:
    text, found = docs_text(), knobs(makefile_text())
    assert {"PROFILE", "CPU_PLACEMENT", "CAPACITY_MIN", "P99_MS", "AWS_HOURS"} <= found
    assert sorted(k for k in found if not named_knob(k, text)) == []


def test_the_readme_links_each_docs_page_once() -> None:
    links = [target.split("#")[0] for target in LINK.findall(README.read_text())]
    assert DOCS, "docs/ has no page"
    assert {doc.name: links.count(f"docs/{doc.name}") for doc in DOCS} == {doc.name: 1 for doc in DOCS}


def anchors(markdown: str) -> set[str]:
    """GitHub's heading anchors: lower case, punctuation dropped, spaces as hyphens."""
    headings = re.findall(r"^#+ (.*)$", strip_code(markdown), re.MULTILINE)
    return {re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-") for heading in headings}


def strip_code(markdown: str) -> str:
    return re.sub(r"^```.*?^```", "", markdown, flags=re.MULTILINE | re.DOTALL)


@pytest.mark.parametrize("page", [README, *DOCS, *RESULTS_PAGES, *OTHER_PAGES],
                         ids=lambda page: str(page.relative_to(paths.ROOT)))
def test_relative_links_lead_to_files_and_headings_that_exist(page: Path) -> None:
    broken = []
    for target in LINK.findall(strip_code(page.read_text())):
        if re.match(r"[a-z]+:", target):
            continue  # https:, mailto:
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        if not file.exists() or (anchor and file.suffix == ".md"
                                 and anchor not in anchors(file.read_text())):
            broken.append(target)
    assert broken == []


def test_the_parsers_find_what_the_makefile_holds() -> None:
    text = "# Knobs: PROFILE, PG_DURABLE=off (see README.md).\nX := 1\nY ?= 2\n" \
           "a: ## do it (DB_PORT=)\n\t$(X) $(if $(SERVICE),--service $(SERVICE))\n.PHONY: a \\\n\tb\n"
    assert knobs(text) == {"PROFILE", "PG_DURABLE", "Y", "DB_PORT", "SERVICE"}
    assert targets(text) == {"a", "b"}
    assert named_target("run-%", "`make run-go`") and not named_target("bench", "make bench-go")
    assert named_knob("A", "make compare A=dir") and not named_knob("A", "RUN_A= or B/A or $(A)")
