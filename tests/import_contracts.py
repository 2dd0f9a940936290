"""An import-linter contract type: no import cycle between modules (``acyclic_modules``).

import-linter's own ``acyclic_siblings`` compares packages (a package with all its descendants),
so it reports package-level dependencies in both directions even where no module imports a
module that imports it back. This contract looks at modules: it fails when a chain of imports
leads from a module back to itself, and names each cycle with the line of every import in it.
Imports inside functions count (they are still a dependency; an import moved into a function
to dodge a cycle is the cycle). Registered in ``pyproject.toml`` (``contract_types``);
``lint-imports`` runs from the repository root, which puts this module on the path.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from grimp import ImportGraph
from importlinter.application import output
from importlinter.domain import fields
from importlinter.domain.contract import Contract, ContractCheck


def _strongly_connected(nodes: set[str], edges: dict[str, list[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components (iterative), those with more than one module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    counter = 0
    for root in sorted(nodes):
        if root in index:
            continue
        work: list[tuple[str, int]] = [(root, 0)]
        while work:
            v, i = work.pop()
            if i == 0:
                index[v] = low[v] = counter
                counter += 1
                stack.append(v)
                on_stack.add(v)
            succ = edges.get(v, [])
            if i < len(succ):
                work.append((v, i + 1))
                w = succ[i]
                if w not in index:
                    work.append((w, 0))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            if low[v] == index[v]:
                comp: list[str] = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
            if work:  # return to the caller: carry the low link up
                parent = work[-1][0]
                low[parent] = min(low[parent], low[v])
    return sorted(out)


def _shortest_cycle(start: str, members: set[str], edges: dict[str, list[str]]) -> list[str]:
    """The shortest chain of imports from ``start`` back to it, inside one component."""
    prev: dict[str, str] = {}
    queue = deque([start])
    while queue:
        v = queue.popleft()
        for w in edges.get(v, []):
            if w not in members:
                continue
            if w == start:
                chain = [v]
                while chain[-1] != start:
                    chain.append(prev[chain[-1]])
                return list(reversed(chain))
            if w not in prev:
                prev[w] = v
                queue.append(w)
    return [start]


def find_cycles(graph: ImportGraph, containers: list[str]) -> list[list[str]]:
    """One shortest cycle per group of modules that import each other (each from its first module)."""
    nodes: set[str] = set()
    for c in containers:
        nodes |= {c} | graph.find_descendants(c)
    edges = {m: sorted(graph.find_modules_directly_imported_by(m) & nodes) for m in nodes}
    return [_shortest_cycle(comp[0], set(comp), edges) for comp in _strongly_connected(nodes, edges)]


class AcyclicModulesContract(Contract):
    """No module of ``containers`` reaches itself through imports.

    Configuration options:
        - containers: The top-level packages whose modules are checked (imports between them count).
    """

    type_name = "acyclic_modules"

    containers = fields.ListField(subfield=fields.StringField())

    def check(self, graph: ImportGraph, verbose: bool) -> ContractCheck:
        """Kept when no cycle exists; the metadata lists each cycle's imports with their lines."""
        containers: list[str] = list(self.containers)  # type: ignore[call-overload]
        cycles = find_cycles(graph, containers)
        described: list[list[dict[str, Any]]] = []
        for cycle in cycles:
            links = []
            for a, b in zip(cycle, [*cycle[1:], cycle[0]], strict=True):
                details = graph.get_import_details(importer=a, imported=b)
                links.append({"importer": a, "imported": b, "lines": sorted(d["line_number"] for d in details)})
            described.append(links)
        return ContractCheck(kept=not cycles, warnings=[], metadata={"cycles": described})

    def render_broken_contract(self, check: ContractCheck) -> None:
        """Each cycle as ``a -> b (l.12) -> a (l.40)``."""
        for links in check.metadata["cycles"]:
            output.print_error("Import cycle:")
            output.new_line()
            for link in links:
                lines = ", ".join(f"l.{n}" for n in link["lines"])
                output.indent_cursor()
                output.print_error(f"{link['importer']} -> {link['imported']} ({lines})", bold=False)
            output.new_line()
