"""Shared checks for the span/run-export importer tests: run an importer the way the loader does
and fail on any exception other than ImportFailure; structured JSON mutations for Hypothesis."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from analyzer.errors import ImportFailure
from analyzer.frames.build import steps_frame, traces_frame
from analyzer.loading.jsonio import head_bytes
from analyzer.plugin_host.protocols import ImportContext
from analyzer.schema.models import Trajectory

_counter = itertools.count()


def fresh_path(tmp: Path, suffix: str) -> Path:
    """A new file name per example (the sniff outline cache keys on path, size and mtime)."""
    return tmp / f"case{next(_counter)}{suffix}"


def run_importer(importer: Any, path: Path) -> tuple[list[Trajectory], ImportContext, ImportFailure | None]:
    """Sniff and read like the loader; only ImportFailure may leave the importer.

    The trajectories must also build frames (what the loader does next) and carry reasons
    for every reported problem.
    """
    ctx = ImportContext(path=path, importer_id="under-test")
    importer.sniff(head_bytes(path), path)  # must not raise, whatever it answers
    try:
        trajs = list(importer.read(path, ctx))
    except ImportFailure as exc:
        assert exc.reason
        return [], ctx, exc
    for t in trajs:
        t.with_id()
    if trajs:
        traces_frame(trajs)
        steps_frame(trajs)
    assert all(reason for _, reason in ctx.errors)
    return trajs, ctx, None


NASTY: list[Any] = [None, "", 0, -1, True, 1e308, -1e308, 2**70, -(2**70), "x" * 5000, [], {}, [[[[[]]]]],
                    {"a": {"b": {"c": None}}}, "not-a-date", "9999-99-99T99:99:99Z", "0x", "\u0000", "1e309",
                    "+275760-09-13T00:00:00Z", 12345678901234567890123, -5, "ERROR", "STATUS_CODE_ERROR"]


def _deep(depth: int) -> Any:
    v: Any = "leaf"
    for _ in range(depth):
        v = {"k": [v]}
    return v


def _nodes(doc: Any, limit: int = 4000) -> list[tuple[Any, Any]]:
    out: list[tuple[Any, Any]] = []
    stack = [doc]
    while stack and len(out) < limit:
        v = stack.pop()
        if isinstance(v, dict):
            for k in list(v):
                out.append((v, k))
                stack.append(v[k])
        elif isinstance(v, list):
            for i in range(len(v)):
                out.append((v, i))
                stack.append(v[i])
    return out


def mutate(doc: Any, data: st.DataObject) -> Any:
    """Apply 1-4 random structural mutations (replace, delete, type swap, deep nesting) in place."""
    nodes = _nodes(doc)
    if not nodes:
        return data.draw(st.sampled_from(NASTY), label="whole")
    for _ in range(data.draw(st.integers(1, 4), label="n_mut")):
        parent, key = data.draw(st.sampled_from(nodes), label="node")
        op = data.draw(st.sampled_from(["replace", "delete", "deep", "stringify", "listify"]), label="op")
        try:
            if op == "replace":
                parent[key] = data.draw(st.sampled_from(NASTY), label="value")
            elif op == "delete":
                del parent[key]
            elif op == "deep":
                parent[key] = _deep(data.draw(st.sampled_from([50, 130, 400]), label="depth"))
            elif op == "stringify":
                parent[key] = json.dumps(parent[key])
            else:
                parent[key] = [parent[key]]
        except (KeyError, IndexError, TypeError):
            continue
    return doc


def dumps(doc: Any) -> str:
    """JSON text of a mutated document (stdlib: big ints and deep nesting survive)."""
    return json.dumps(doc, ensure_ascii=False)


def corrupt_bytes(raw: bytes, data: st.DataObject) -> bytes:
    """Overwrite a random slice with random bytes and maybe truncate."""
    buf = bytearray(raw)
    pos = data.draw(st.integers(0, max(0, len(buf) - 1)), label="pos")
    junk = data.draw(st.binary(min_size=1, max_size=64), label="junk")
    buf[pos: pos + len(junk)] = junk
    if data.draw(st.booleans(), label="truncate"):
        buf = buf[: data.draw(st.integers(0, len(buf)), label="cut")]
    return bytes(buf)
