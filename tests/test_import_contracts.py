"""The ``acyclic_modules`` import-linter contract (``tests/import_contracts.py``) finds and names cycles."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import grimp

from tests.import_contracts import AcyclicModulesContract, find_cycles

ROOT = Path(__file__).resolve().parents[1]


def _graph(*imports: tuple[str, str]) -> grimp.ImportGraph:
    g = grimp.ImportGraph()
    for pkg in ("pkg", "other"):
        g.add_module(pkg)
    for a, b in imports:
        for m in (a, b):
            g.add_module(m)
        g.add_import(importer=a, imported=b, line_number=1, line_contents=f"import {b}")
    return g


def _check(graph: grimp.ImportGraph, containers: list[str]) -> object:
    contract = AcyclicModulesContract("no cycles", {}, {"containers": containers})
    return contract.check(graph, verbose=False)


def test_a_pair_and_a_longer_cycle_are_each_named_once() -> None:
    g = _graph(("pkg.a", "pkg.b"), ("pkg.b", "pkg.a"),  # a pair
               ("pkg.c", "pkg.d"), ("pkg.d", "other.e"), ("other.e", "pkg.c"),  # across packages
               ("pkg.f", "pkg.a"), ("pkg.c", "pkg.f"))  # leads into a cycle, is in none
    assert find_cycles(g, ["pkg", "other"]) == [["other.e", "pkg.c", "pkg.d"], ["pkg.a", "pkg.b"]]
    check = _check(g, ["pkg", "other"])
    assert not check.kept  # type: ignore[attr-defined]
    links = check.metadata["cycles"]  # type: ignore[attr-defined]
    assert [(x["importer"], x["imported"]) for x in links[1]] == [("pkg.a", "pkg.b"), ("pkg.b", "pkg.a")]


def test_no_cycle_keeps_the_contract_and_modules_outside_the_containers_do_not_count() -> None:
    g = _graph(("pkg.a", "pkg.b"), ("pkg.b", "pkg.c"), ("pkg.a", "pkg.c"))
    assert _check(g, ["pkg"]).kept  # type: ignore[attr-defined]
    g = _graph(("pkg.a", "other.x"), ("other.x", "pkg.a"))
    assert find_cycles(g, ["pkg"]) == []  # the chain leaves the checked packages


def test_lint_imports_fails_on_a_cycle_through_an_import_inside_a_function(tmp_path: Path) -> None:
    pkg = tmp_path / "cyc"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from cyc import b\n")
    (pkg / "b.py").write_text("def f():\n    from cyc import a\n    return a\n")
    (tmp_path / "pyproject.toml").write_text(
        '[tool.importlinter]\nroot_packages = ["cyc"]\n'
        'contract_types = ["acyclic_modules: tests.import_contracts.AcyclicModulesContract"]\n\n'
        '[[tool.importlinter.contracts]]\nname = "no cycles"\ntype = "acyclic_modules"\ncontainers = ["cyc"]\n')
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)])}
    lint = Path(sys.executable).with_name("lint-imports")
    res = subprocess.run([str(lint), "--no-cache"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert res.returncode == 1, res.stdout + res.stderr
    assert "cyc.a -> cyc.b (l.1)" in res.stdout and "cyc.b -> cyc.a (l.2)" in res.stdout, res.stdout
