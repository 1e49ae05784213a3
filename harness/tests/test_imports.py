"""The harness's shape: no import cycle between its modules (imports inside functions and for type
checking count too), each floor imports only from the floors before it, and every module imports
on its own, in any order."""

from __future__ import annotations

import ast
import graphlib
import subprocess
import sys
from pathlib import Path

import pytest

from bankbench import paths

PACKAGE = paths.ROOT / "harness" / "bankbench"
# The floors in the order data flows through them (bankbench/__init__.py); the modules at the
# top of the package (errors, paths, config, registry) are below them all, cli and commands above.
FLOORS = ("tools", "system", "load", "measure", "checks", "analyse", "run", "publish", "commands")


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def imported(module: str) -> set[str]:
    """The bankbench modules `module` imports, wherever the import statement stands."""
    found = set()
    for node in ast.walk(ast.parse(MODULES[module].read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:  # `from bankbench.x import y`: y is a module or a name in x
                candidate = f"{node.module}.{alias.name}"
                found.add(candidate if candidate in MODULES else node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {name for name in found if name in MODULES and name != module}


GRAPH = {module: imported(module) for module in MODULES}


def floor(module: str) -> int:
    """The index of the module's floor: -1 for the package's own modules, which every floor
    reads; the top for the command line."""
    parts = module.split(".")
    if parts[1:] and parts[1] in FLOORS:
        return FLOORS.index(parts[1])
    return len(FLOORS) if module in ("bankbench.cli", "bankbench.__main__") else -1


def test_the_graph_is_read() -> None:
    assert "bankbench.run.env" in GRAPH["bankbench.run.runner"]  # the reader can fail


def test_no_import_cycle() -> None:
    try:
        graphlib.TopologicalSorter(GRAPH).prepare()
    except graphlib.CycleError as err:
        pytest.fail(f"import cycle: {' -> '.join(err.args[1])}")


def test_a_floor_imports_only_from_the_floors_before_it() -> None:
    upward = [f"{module} -> {dep}" for module, deps in GRAPH.items() for dep in deps
              if floor(dep) > floor(module)]
    assert upward == []


def test_every_floor_is_a_folder_of_the_package() -> None:
    assert {path.name for path in PACKAGE.iterdir() if (path / "__init__.py").exists()} == set(FLOORS)


@pytest.mark.parametrize("order", ["sorted", "reversed"])
def test_every_module_imports_in_a_fresh_interpreter(order: str) -> None:
    names = sorted(set(MODULES) - {"bankbench.__main__"}, reverse=order == "reversed")  # it runs
    code = "import importlib\n" + "".join(f"importlib.import_module({name!r})\n" for name in names)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
