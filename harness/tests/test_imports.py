"""The harness's shape: no import cycle between its modules (imports inside functions and for type
checking count too), each floor imports only from the floors before it in the order the package's
docstring names them, every module's name is used once, and every module imports on its own, in
any order."""

from __future__ import annotations

import ast
import collections
import graphlib
import re
import subprocess
import sys
from pathlib import Path

import pytest

import bankbench
from bankbench import paths

PACKAGE = paths.ROOT / "harness" / "bankbench"
FLOOR = r"(\w+)(?:\s*\([^)]*\))?"  # a floor as the docstring names it: `tools (the machine)`


def docstring_floors(doc: str) -> tuple[str, ...]:
    """The floors the package's docstring names in a chain, `tools (...) -> system (...) -> ...`."""
    chain = re.search(rf"{FLOOR}(?:\s*->\s*{FLOOR})+", doc)
    return tuple(re.findall(FLOOR, chain.group())) if chain else ()


def docstring_own_modules(doc: str) -> tuple[str, ...]:
    """The modules at the top of the package that the docstring says every floor reads."""
    listed = re.search(r"every\s+floor\s+reads:\s*([\w,\s]+)\.", doc)
    return tuple(re.split(r",\s*", listed.group(1).strip())) if listed else ()


# The floors in the order they import (bankbench/__init__.py); the package's own modules (errors,
# paths...) are below them all, the command line above.
FLOORS = docstring_floors(bankbench.__doc__ or "")
OWN_MODULES = docstring_own_modules(bankbench.__doc__ or "")


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


def test_the_package_docstring_names_every_floor_once_and_the_modules_every_floor_reads() -> None:
    assert len(FLOORS) == len(set(FLOORS)) > 1, FLOORS
    top = {path.stem for path in PACKAGE.glob("*.py")} - {"__init__", "__main__", "cli"}
    assert set(OWN_MODULES) == top


def test_every_module_name_is_used_once() -> None:
    """A module's name says what it does, so one name is one module, whatever its floor."""
    found = collections.defaultdict(list)
    for path in MODULES.values():
        if path.stem != "__init__":
            found[path.stem].append(str(path.relative_to(PACKAGE)))
    assert {name: where for name, where in found.items() if len(where) > 1} == {}


def test_the_graph_is_read() -> None:
    assert "bankbench.run.environments.interface" in GRAPH["bankbench.run.runner"]  # it can fail


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


def test_results_stores_analyse_computes_and_never_drives_a_run() -> None:
    """Data flows one way: run/ writes a run folder through results/, analyse/ computes from it
    there and never imports run/ or publish/; run/ reads analyse's figures of the levels it wrote."""
    crossing = [f"{module} -> {dep}" for module, deps in GRAPH.items() for dep in deps
                if (module.split(".")[1] == "analyse" and dep.split(".")[1] in ("run", "publish"))
                or {module.split(".")[1], dep.split(".")[1]} == {"run", "publish"}]
    assert crossing == []
    assert floor("bankbench.results.files") < floor("bankbench.analyse.repeats") < floor("bankbench.run.runner")


def test_results_computes_nothing() -> None:
    """The run folder's floor reads and writes; statistics (numpy's, pandas' aggregations, the
    statistics module) are analyse/'s."""
    computing = re.compile(r"\bimport statistics\b|\.(quantile|median|mean|std|agg)\(|np\.(percentile|mean|median)\(")
    found = [f"{path.relative_to(PACKAGE)}:{number}: {line.strip()}"
             for module, path in MODULES.items() if module.startswith("bankbench.results")
             for number, line in enumerate(path.read_text().splitlines(), 1) if computing.search(line.split("#")[0])]
    assert found == []


# The files of a run folder that results/LAYOUT.md lays out and results/ alone reads and writes.
# The load generators' raw samples and logs and the CPU recordings are written by the tools
# themselves, where the run floor points them (bankbench.load, bankbench.measure).
LAYOUT_FILES = re.compile(r"""(?<!")["'](?:(?:manifest|level|money|summary|capacity|tuning|verify|calibration|chaos"""
                          r"""|incomplete)\.json|(?:metrics|service_metrics|summary|histograms)\.csv(?:\.xz|\.gz)?"""
                          r"""|service\.log(?:\.gz)?)["']""")


def test_only_the_results_floor_names_a_run_folders_files() -> None:
    named = [f"{path.relative_to(PACKAGE)}:{number}: {line.strip()}"
             for module, path in MODULES.items() if not module.startswith("bankbench.results")
             for number, line in enumerate(path.read_text().splitlines(), 1)
             if LAYOUT_FILES.search(line.split("#")[0])]
    assert named == []


def test_the_layout_pattern_finds_a_file_name() -> None:
    assert LAYOUT_FILES.search('out / "money.json"') and LAYOUT_FILES.search("'metrics.csv'")


# A run, a level, a probe and the records holding them, as their parameters are named: read through
# results/ (bankbench.results.documents, bankbench.results.probes), they cross floors as records.
RECORDS = {"manifest", "level", "probe", "record", "search", "knob", "duel", "turn"}
DICT = re.compile(r"^(?:dict|Mapping|Sequence\[dict|list\[dict|Iterable\[dict)\b")


def dict_records(module: str) -> list[str]:
    """The parameters of `module`'s functions named as a record (RECORDS) and annotated as dicts;
    a record's own constructor (`of`), which reads the document, aside."""
    return [f"{module}.{node.name}({arg.arg}: {ast.unparse(arg.annotation)})"
            for node in ast.walk(ast.parse(MODULES[module].read_text()))
            if isinstance(node, ast.FunctionDef) and node.name != "of"
            for arg in node.args.args + node.args.kwonlyargs
            if arg.arg in RECORDS and arg.annotation is not None and DICT.match(ast.unparse(arg.annotation))]


def test_the_readers_of_a_run_folder_take_records_not_dicts() -> None:
    """Every floor but the run floor, which writes capacity.json and tuning.json as it goes: a dict
    it rewrites after every probe, through results' write_record."""
    readers = [module for module in MODULES if floor(module) != floor("bankbench.run.runner")]
    assert [found for module in readers for found in dict_records(module)] == []


def test_a_dict_record_is_found() -> None:
    assert dict_records("bankbench.run.experiments.capacity_search")  # the writer's: it can fail
