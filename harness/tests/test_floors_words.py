"""Analysis returns figures, publishing writes words (issue 53): the modules of analyse/ print
nothing, build no table and hold no sentence; every sentence and table is publish/'s.

A sentence is a string literal (an f-string's text with each {value} one word) of more than
LABEL_WORDS words, or of two words or more that ends with a period. Docstrings and comments do
not count, nor the message of an error raised (what the user reads when the figures cannot be
had is no figure). A label ("within noise", "none held", "p99 ms") is data, and stays."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from bankbench import paths

ANALYSE = paths.ROOT / "harness" / "bankbench" / "analyse"
LABEL_WORDS = 6  # the most words a label has
WORD = re.compile(r"\S+")
TABLE = re.compile(r"\|\s*:?-{3}")  # a Markdown table's rule, |--- or | :---
RENDERERS = {"tabulate"}  # libraries that lay figures out as a table


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of the docstring nodes of a module, its classes and functions."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant | ast.JoinedStr):
                found.add(id(first.value))
    return found


def _raised(tree: ast.AST) -> set[int]:
    """The ids of every node within a `raise` statement."""
    return {id(inner) for node in ast.walk(tree) if isinstance(node, ast.Raise) for inner in ast.walk(node)}


def _text(node: ast.Constant | ast.JoinedStr) -> str:
    """A string literal's text; an f-string's with `{}` for each value."""
    if isinstance(node, ast.Constant):
        return node.value
    return "".join(part.value if isinstance(part, ast.Constant) else "{}" for part in node.values)


def is_sentence(text: str) -> bool:
    words = WORD.findall(text)
    return len(words) > LABEL_WORDS or (len(words) > 1 and text.rstrip().endswith("."))


def words_in(source: str) -> list[str]:
    """What in `source` is words or a table rather than figures (module doc), one line each."""
    tree = ast.parse(source)
    skipped = _docstrings(tree) | _raised(tree)
    inner = {id(part) for node in ast.walk(tree) if isinstance(node, ast.JoinedStr) for part in ast.walk(node)
             if part is not node}  # an f-string's parts and format specs: judged with it
    found = []
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print":
            found.append(f"{line}: print(")
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names = [node.module or ""] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names]
            found += [f"{line}: import {name}" for name in names if name.split(".")[0] in RENDERERS]
        elif (isinstance(node, ast.JoinedStr) or (isinstance(node, ast.Constant) and isinstance(node.value, str))) \
                and id(node) not in skipped | inner:
            text = _text(node)
            if TABLE.search(text):
                found.append(f"{line}: a Markdown table: {text!r}")
            elif is_sentence(text):
                found.append(f"{line}: a sentence: {text!r}")
    return found


@pytest.mark.parametrize("path", sorted(ANALYSE.glob("*.py")), ids=lambda path: path.name)
def test_analyse_holds_figures_not_words(path: Path) -> None:
    assert words_in(path.read_text()) == []


def test_the_check_finds_a_print_a_sentence_a_table_and_a_renderer() -> None:
    source = '''
"""A module docstring of many words, which does not count."""
from tabulate import tabulate
LABEL = "within noise"
TOLD = f"{leader}'s p99 was lowest, {figure} ms, at {users} users"
SHORT = "no run yet."
RULE = "| a |\\n|---|"

def f(x):
    """A docstring of many words, which does not count either."""
    if x is None:
        raise ValueError(f"{x} is not a level with phases, and an error may say so")
    print(x)
    return f"{x:.1f} ms"  # a figure and its unit: a label
'''
    found = words_in(source)
    assert [line.split(":")[1].strip().split(" ")[0] for line in found] == ["import", "a", "a", "a", "print("], found
    assert any("p99 was lowest" in line for line in found) and any("no run yet." in line for line in found)
    assert any("Markdown table" in line for line in found)
    assert not any("within noise" in line or "docstring" in line or "not a level" in line for line in found)
