"""No two of the project's modules import each other, however late (an import inside a
function counts; one under ``if TYPE_CHECKING:`` does not, as it never runs)."""

import ast
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import pytest

from tests.cli_fixtures import ROOT

PACKAGES = ("app", "scanner", "scoring", "models", "benchmarks")


def module_files() -> dict[str, Path]:
    """Dotted module name -> file, for cli.py and every module of :data:`PACKAGES`."""
    files = {"cli": ROOT / "cli.py"}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            files[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return files


def imported(node: ast.AST, known: dict[str, Path]):
    """The names of the modules ``node`` imports anywhere below it (``from a import b``
    is ``a.b`` where that is a module, else ``a``), leaving out TYPE_CHECKING blocks."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
            continue
        if isinstance(child, ast.Import):
            yield from (alias.name for alias in child.names)
        elif isinstance(child, ast.ImportFrom) and child.level == 0 and child.module:
            for alias in child.names:
                sub = f"{child.module}.{alias.name}"
                yield sub if sub in known else child.module
        yield from imported(child, known)


def import_graph() -> dict[str, set[str]]:
    files = module_files()
    return {
        name: {m for m in imported(ast.parse(path.read_text()), files) if m in files} - {name}
        for name, path in files.items()
    }


def test_the_graph_sees_late_imports_and_skips_type_checking_ones():
    graph = import_graph()
    assert "scanner.pdf" in graph["scanner.page_count"]  # imported inside page_count()
    assert "scanner.pipeline" not in graph["scanner.coin_doubts"]  # TYPE_CHECKING only
    assert "scanner.pipeline" in graph["benchmarks.lattice_stages"]


def test_no_module_imports_one_that_imports_it_back():
    try:
        list(TopologicalSorter(import_graph()).static_order())
    except CycleError as err:
        pytest.fail(f"import cycle: {' -> '.join(err.args[1])}")
