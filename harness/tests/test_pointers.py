"""Code that points to its explanation (issue 71): each module of bankbench says its job in its
docstring's first line and names the page that explains it, and every pointer to a file of the
repository, in code (comments, docstrings, strings) or in the docs' text, leads to a file (and
heading) that exists. The docs' markdown links are test_docs.py's; this is the rest.

A pointer is a token that starts with a top-level folder and a slash (`docs/method.md#capacity`,
`db/queries/`) or is a top-level file's name (`services.yaml`, `README.md#anchor`), read from the
folder of the file that names it up to the root, as a reader would (`README.md` in bank-go/ is
bank-go/README.md). A placeholder (`<name>`, `{run}`, `*`, `$VAR`, `results/runs/A`) and
`git show REV:path` (the history's, not the tree's) are not pointers; neither is what a build or a
run writes (GENERATED, each with its reason)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from bankbench import paths

from test_docs import anchors, strip_code

ROOT = paths.ROOT
PACKAGE = ROOT / "harness" / "bankbench"
TOP_FOLDERS = sorted(p.name for p in ROOT.iterdir() if p.is_dir() and not p.name.startswith("."))
TOP_FILES = sorted(p.name for p in ROOT.iterdir() if p.is_file() and not p.name.startswith("."))
CODE = ["harness/bankbench/**/*.py", "harness/tests/**/*.py", "scripts/*", "Makefile", "infra/*.mk",
        "bank-go/**/*.go", "bank-java/src/**/*.java", "bank-helidon/src/**/*.java",
        "java-shared/src/**/*.java", "contract/**/*.py",
        "gatling/src/**/*.java", "*.yaml", "*.yml", "*.toml", "api/*.yaml"]
# The docs' text (the report's pages are written by bankbench.publish from the runs: test_docs.py
# follows their links, and a rebuild must give their bytes).
DOCS = ["*.md", "*/README.md", "*/*/README.md", "docs/*.md", "api/*.md", "results/*.md", "results/*/*.md"]
# What a build or a run writes, which the tree does not hold: a pointer under one is not checked.
# Each is one git ignores (test_generated_paths_are_ignored_by_git).
GENERATED = {
    "bank-go/bin/": "make build-go's binary",
    "target/": "Maven's output: bank-java's and bank-helidon's jars, JMeter's install, Gatling's classpath",
    "jmeter/calibrate/bin/": "the calibration target, built by the Makefile",
    "results/report/results.html": "make report-html's executed notebook",
    "results/jmeter/": "what JMeter writes when run by hand in compose (docs/benchmarks.md)",
    "results/gatling/": "what Gatling writes when run by hand in compose (gatling/README.md)",
}
# Modules another engineer is deleting or rewriting now: being rewritten (issue 71). Remove each
# from here as its rewrite lands.

_START = "|".join([*(re.escape(f"{folder}/") for folder in TOP_FOLDERS),
                   *(rf"{re.escape(name)}(?![\w-])" for name in TOP_FILES)])
# Not after a word, a path or a URL (`../docs/x.md`, `https://.../docs`), `$`, `@` or `rev:`.
POINTER = re.compile(rf"(?<![\w./$@:-])(?:{_START})[\w./<>{{}}*$%-]*(?:#[\w-]+)?")
PLACEHOLDER = re.compile(r"[<>{}*$%]|(?:^|/)[A-Z][A-Z0-9_]*(?:/|$)")


def files(patterns: list[str]) -> list[Path]:
    """The files of `patterns` but caches, the report's pages and this file (its examples of broken
    pointers are broken on purpose: test_the_scanner_finds_pointers)."""
    found = {path for pattern in patterns for path in ROOT.glob(pattern) if path.is_file()}
    return sorted(path for path in found - {Path(__file__).resolve()}
                  if "__pycache__" not in path.parts and path.suffix != ".pyc"
                  and not path.is_relative_to(paths.RESULTS / "report"))


def pointers(text: str) -> list[str]:
    """The pointers of `text` (module doc), without a sentence's closing punctuation."""
    found = (match.group(0).rstrip(".,;:") for match in POINTER.finditer(text))
    return [token for token in found if not PLACEHOLDER.search(token.partition("#")[0])]


def generated(path: str) -> bool:
    return any(path.startswith(prefix) or f"/{prefix}" in path for prefix in GENERATED)


def resolve(source: Path, path: str) -> Path | None:
    """The file or folder `path` names, from `source`'s folder up to the root (module doc)."""
    for folder in [source.parent, *source.parent.parents]:
        if (folder / path).exists():
            return folder / path
        if folder == ROOT:
            return None
    return None


def broken(source: Path, text: str) -> list[str]:
    """The pointers of `text`, written in `source`, to a file or a heading that does not exist."""
    return [pointer for pointer in pointers(text) if not leads_somewhere(source, *pointer.partition("#")[::2])]


def leads_somewhere(source: Path, path: str, anchor: str) -> bool:
    """Whether `path` names a file or folder (or what GENERATED says is written) and, in a Markdown
    page, `anchor` one of its headings."""
    target = resolve(source, path)
    if target is None:
        return generated(path)
    return not (anchor and target.suffix == ".md") or anchor in anchors(target.read_text())


def name(path: Path) -> str:
    return str(path.relative_to(ROOT))


@pytest.mark.parametrize("source", files(CODE), ids=name)
def test_pointers_in_code_lead_to_files_and_headings_that_exist(source: Path) -> None:
    assert broken(source, source.read_text(errors="replace")) == []


@pytest.mark.parametrize("page", files(DOCS), ids=name)
def test_pointers_in_the_docs_lead_to_files_and_headings_that_exist(page: Path) -> None:
    # The links' targets are test_docs.py's; a link's text (`[docs/x.md](...)`) is a pointer too.
    assert broken(page, strip_code(page.read_text())) == []


def modules() -> list[Path]:
    """Every module of bankbench but an empty __init__.py."""
    return [path for path in sorted(PACKAGE.rglob("*.py")) if path.read_text().strip()]


def module_name(path: Path) -> str:
    return str(path.relative_to(PACKAGE))


@pytest.mark.parametrize("module", modules(), ids=module_name)
def test_each_module_says_its_job_in_a_line_and_names_its_page(module: Path) -> None:
    doc = ast.get_docstring(ast.parse(module.read_text()))
    assert doc, "no module docstring"
    first, *rest = doc.splitlines()
    assert len(first.split()) >= 3 and (not rest or not rest[0].strip()), \
        "the first line says the module's job, a sentence of its own (a blank line after it)"
    pages = [page for page in pointers(doc) if page.partition("#")[0].endswith(".md")]
    assert pages, "names no page that explains it (docs/x.md, results/LAYOUT.md, ...)"
    assert broken(module, doc) == []


def test_generated_paths_are_ignored_by_git() -> None:
    ignored = (ROOT / ".gitignore").read_text().splitlines()
    assert sorted(prefix for prefix in GENERATED if prefix not in ignored) == []


def test_the_scanner_finds_pointers() -> None:
    text = ("See docs/method.md#capacity-the-model, README.md and `db/queries/`. Not ../docs/x.md,\n"
            "https://x.org/docs/y.md, git show 5a58b1c:results/a.csv, READMEs, results/runs/<run>/,\n"
            "f'results/runs/{run}', results/runs/A, $(PROFILES) or bankbench/results/files.py.")
    assert pointers(text) == ["docs/method.md#capacity-the-model", "README.md", "db/queries/"]
    assert broken(PACKAGE / "paths.py", "docs/method.md#nowhere and docs/gone.md, results/LAYOUT.md") \
        == ["docs/method.md#nowhere", "docs/gone.md"]
    assert broken(PACKAGE / "paths.py", "bank-go/bin/bank-go, bank-java/target/bank-java.jar") == []
