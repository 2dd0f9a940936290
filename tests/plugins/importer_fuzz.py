"""Property checks shared by importer tests: bad input never raises out of an importer.

Two kinds of input are tried: arbitrary byte damage of a real sample (overwrite, truncate) and
structural mutations of its parsed records (a value anywhere replaced by arbitrary JSON, a key
dropped). The importer may only raise :class:`ImportFailure` (a whole-file reason); anything else
is a bug. Through the loader, no error may be the catch-all "unexpected content".
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from analyzer.errors import ImportFailure
from analyzer.loading import load
from analyzer.plugin_host.protocols import ImportContext
from analyzer.plugin_host.registry import PluginHost
from analyzer.schema.models import Trajectory

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=10,
)


def read_all(importer: Any, path: Path) -> tuple[list[Trajectory], ImportContext]:
    """Run an importer over a file; only :class:`ImportFailure` may escape (and is swallowed here)."""
    ctx = ImportContext(path=path, importer_id="fuzz")
    try:
        runs = list(importer.read(path, ctx))
    except ImportFailure as exc:
        assert exc.reason
        return [], ctx
    assert all(reason for _, reason in ctx.errors)
    return runs, ctx


def damage_bytes(raw: bytes, data: st.DataObject) -> bytes:
    """Overwrite a random slice with random bytes and maybe truncate."""
    buf = bytearray(raw)
    pos = data.draw(st.integers(0, max(len(buf) - 1, 0)), label="pos")
    junk = data.draw(st.binary(min_size=1, max_size=32), label="junk")
    buf[pos: pos + len(junk)] = junk
    if data.draw(st.booleans(), label="truncate"):
        buf = buf[: data.draw(st.integers(0, len(buf)), label="cut")]
    return bytes(buf)


def _paths(node: Any, here: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [here]
    if isinstance(node, dict):
        for k, v in node.items():
            out.extend(_paths(v, (*here, k)))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out.extend(_paths(v, (*here, i)))
    return out


def mutate(doc: Any, data: st.DataObject) -> Any:
    """Replace the value at a random path by arbitrary JSON, or drop a key / list item there."""
    paths = _paths(doc)
    path = data.draw(st.sampled_from(paths), label="path")
    if not path:
        return data.draw(JSON_VALUES, label="whole")
    parent = doc
    for key in path[:-1]:
        parent = parent[key]
    last = path[-1]
    if data.draw(st.booleans(), label="drop"):
        del parent[last]
    else:
        parent[last] = data.draw(JSON_VALUES, label="value")
    return doc


def write_mutated(sample: Path, out: Path, data: st.DataObject, *, lines: bool = False) -> None:
    """Write a structurally mutated copy of a JSON (or JSONL) sample."""
    if lines:
        records = [json.loads(x) for x in sample.read_text(encoding="utf-8").splitlines() if x.strip()]
        i = data.draw(st.integers(0, len(records) - 1), label="line")
        records[i] = mutate(records[i], data)
        out.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    else:
        out.write_text(json.dumps(mutate(json.loads(sample.read_text(encoding="utf-8")), data)), encoding="utf-8")


def assert_no_catch_all(path: Path, host: PluginHost, importer_id: str) -> None:
    """Through the loader, no error is the catch-all for importer bugs."""
    res = load([path], host=host, importer=importer_id, cache=None)
    for e in res.errors:
        assert not e.reason.startswith("unexpected content"), e
