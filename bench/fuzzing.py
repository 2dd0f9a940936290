"""Mutation fuzzing of the importers: input generation, one-input runs, outcome classes.

Shared by ``bench/fuzz.py`` (hundreds of thousands of inputs in worker processes) and
``tests/test_importers_fuzz.py`` (Hypothesis property tests). Everything here is
deterministic given a seed, so an input is named by ``(importer, seed)`` and can be made
again to save a reproducer.

Inputs are either arbitrary bytes or mutations of the committed samples in
``sample_traces/`` that the importer claims:

* structured (the sample parses as JSON, JSONL or an Inspect zip): drop, duplicate or retype
  a key; delete, duplicate or swap list items; values replaced by deep nesting (100 to
  1,100 levels), huge integers, +-1e308, invalid UTF-8, NUL and control characters, long
  strings; zip members mutated the same way and the archive written again;
* bytes: truncation, flipped, inserted or deleted bytes, invalid UTF-8, a duplicated chunk,
  and for zips damage to the central directory.

Outcome of one input (:func:`classify`):

* ``loaded``: every run loaded, no error;
* ``reported``: errors, each naming its record or a deliberate whole-file refusal (empty,
  not JSON, over a cap ...): what was lost was the bad part only;
* ``lost``: the loader's catch-all fired (an importer bug took runs with it that no record
  accounts for): ``unexpected content`` with no record, or "later ones were not read";
* ``crash``: an exception escaped the loader; ``hang``: over the time limit (bench only).
"""

from __future__ import annotations

import io
import json
import random
import warnings
import zipfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_traces"
FUZZ_SEEDS = ROOT / "bench" / "fuzz_seeds"

OUTCOMES = ("loaded", "reported", "lost", "crash", "hang")

_CATCH_ALL = ("unexpected content (", "data is nested too deeply to read safely",
              "file is too large to read into memory")


def is_lost(record: str | None, reason: str) -> bool:
    """True for an error of the loader's catch-all: runs lost that no record accounts for."""
    if "later ones were not read" in reason:
        return True
    return record is None and reason.startswith(_CATCH_ALL)


def classify(errors: Iterable[Any]) -> str:
    """Outcome class of one read from its ``LoadError`` list (see the module docstring)."""
    errs = list(errors)
    if not errs:
        return "loaded"
    return "lost" if any(is_lost(e.record, e.reason) for e in errs) else "reported"


# ---- samples -----------------------------------------------------------------------------


def samples_by_importer(host: Any, root: Path = SAMPLES) -> dict[str, list[Path]]:
    """Committed sample files per importer id (the files each importer claims).

    Besides ``root`` (``sample_traces/``), the seeds in ``bench/fuzz_seeds/`` count: they give
    importers without a committed sample something to mutate.
    """
    from analyzer.loading.loader import claim, iter_files

    out: dict[str, list[Path]] = {}
    roots = [root] + ([FUZZ_SEEDS] if root == SAMPLES and FUZZ_SEEDS.is_dir() else [])
    for path in iter_files(roots):
        if path.name.lower() in ("readme.md", "license") or any(s.is_sidecar(path) for s in host.importers()):
            continue
        spec, _cands, _problem = claim(path, host)
        if spec is not None:
            out.setdefault(spec.id, []).append(path)
    return out


def fuzz_name(spec: Any) -> str:
    """A file name the importer's patterns match (``*.traj.json`` -> ``fuzz.traj.json``)."""
    for pattern in spec.patterns:
        name = pattern.replace("*", "fuzz").replace("?", "x")
        if "[" not in name:
            return name
    return "fuzz.json"


# ---- value mutations ---------------------------------------------------------------------

_PH = "\u2603PH{}\u2603"  # placeholder replaced in the serialised text


@dataclass
class _Text:
    """Serialised JSON plus raw byte splices for what json.dumps cannot write."""

    splices: dict[str, bytes]

    def dumps(self, value: Any) -> bytes:
        data = json.dumps(value, ensure_ascii=False).encode()
        for key, raw in self.splices.items():
            data = data.replace(json.dumps(key, ensure_ascii=False).encode(), raw)
        return data


def _deep(rng: random.Random) -> bytes:
    n = rng.choice([100, 199, 201, 253, 255, 300, 600, 1000, 1023, 1100])
    if rng.random() < 0.5:
        return b"[" * n + b"1" + b"]" * n
    return b'{"a":' * n + b"1" + b"}" * n


def _weird_value(rng: random.Random, text: _Text) -> Any:
    kind = rng.randrange(17)
    if kind == 0:
        return None
    if kind == 1:
        return rng.choice([True, False])
    if kind == 2:
        return rng.choice([0, -1, 1, 2**31, 2**53 + 1])
    if kind == 3:
        return rng.choice([2**63, 2**64, 2**64 + 1, -(2**63) - 1, 10**30])
    if kind == 4:
        return rng.choice([1e308, -1e308, 5e-324, 1.7976931348623157e308])
    if kind == 5:
        return rng.choice(["", "x", "1e308", "-1", "null", "NaN", "9" * 30, "2024-13-45T99:99:99Z"])
    if kind == 6:
        return []
    if kind == 7:
        return {}
    if kind == 8:
        return [rng.choice([None, 1, "x", {}])]
    if kind == 9:
        return {"a": rng.choice([None, 1, "x", []])}
    if kind == 10:
        return "y" * rng.choice([1000, 100_000])
    if kind == 11:
        return "a\x00b\x01\x1f\u2028\ud7ff"
    key = _PH.format(len(text.splices))
    if kind in (12, 13):
        text.splices[key] = _deep(rng)
    elif kind == 14:
        text.splices[key] = b'"bad \xff\xfe utf8 \xc3"'
    elif kind == 15:
        text.splices[key] = rng.choice([b"1e400", b"-1e400", b"1" + b"0" * 400, b"NaN", b"Infinity"])
    else:
        text.splices[key] = b'"\xed\xa0\x80 lone surrogate"'
    return key


def _containers(value: Any) -> list[Any]:
    """Every dict and list inside ``value`` (iterative)."""
    out, stack = [], [value]
    while stack and len(out) < 5000:
        v = stack.pop()
        if isinstance(v, dict):
            out.append(v)
            stack.extend(v.values())
        elif isinstance(v, list):
            out.append(v)
            stack.extend(v)
    return out


def mutate_value(value: Any, rng: random.Random, text: _Text) -> tuple[Any, str]:
    """One structural mutation of a parsed JSON value, in place when possible."""
    nodes = _containers(value)
    if not nodes:
        return _weird_value(rng, text), "replace-root"
    node = rng.choice(nodes)
    op = rng.randrange(6)
    if isinstance(node, dict) and node:
        key = rng.choice(list(node))
        if op == 0:
            del node[key]
            return value, f"drop-key {key!r}"
        if op == 1:
            dup = _PH.format(len(text.splices))
            text.splices[dup] = json.dumps(key, ensure_ascii=False).encode()
            node[dup] = _weird_value(rng, text) if rng.random() < 0.5 else node[key]
            return value, f"duplicate-key {key!r}"
        if op == 2:
            new_key = rng.choice(["", "steps", "messages", "history", "samples", "id", "trace_id", "step"])
            node[new_key] = node.pop(key)
            return value, f"rename-key {key!r}->{new_key!r}"
        node[key] = _weird_value(rng, text)
        return value, f"retype {key!r}"
    if isinstance(node, list) and node:
        i = rng.randrange(len(node))
        if op == 0:
            del node[i]
            return value, f"delete-item {i}"
        if op == 1:
            node.insert(i, node[i])
            return value, f"duplicate-item {i}"
        if op == 2:
            j = rng.randrange(len(node))
            node[i], node[j] = node[j], node[i]
            return value, f"swap-items {i},{j}"
        node[i] = _weird_value(rng, text)
        return value, f"retype-item {i}"
    if isinstance(node, dict):
        node["x"] = _weird_value(rng, text)
    else:
        node.append(_weird_value(rng, text))
    return value, "grow-empty"


# ---- byte mutations ----------------------------------------------------------------------


def mutate_bytes(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    """One byte-level mutation."""
    if not data:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 64))), "random"
    n = len(data)
    i = rng.randrange(n)
    op = rng.randrange(7)
    if op == 0:
        return data[:i], f"truncate {i}"
    if op == 1:
        k = rng.randrange(1, 9)
        return data[:i] + bytes(rng.randrange(256) for _ in range(k)) + data[i + k:], f"flip {i}+{k}"
    if op == 2:
        return data[:i] + rng.choice([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\x80\x80", b"\x00"]) + data[i:], f"insert-bad {i}"
    if op == 3:
        k = rng.randrange(1, max(2, n // 4))
        return data[:i] + data[i + k:], f"delete {i}+{k}"
    if op == 4:
        k = rng.randrange(1, max(2, min(n - i, 4096)))
        return data[:i] + data[i:i + k] * 2 + data[i + k:], f"duplicate {i}+{k}"
    if op == 5 and data[:2] == b"PK":  # damage the end of the archive (central directory)
        j = max(0, n - rng.randrange(1, min(n, 200)))
        k = rng.randrange(1, 5)
        return data[:j] + bytes(rng.randrange(256) for _ in range(k)) + data[j + k:], f"damage-directory {j}+{k}"
    return data[:i] + b"\n" + data[i:], f"newline {i}"


# ---- whole inputs ------------------------------------------------------------------------


def _mutate_json(data: bytes, rng: random.Random) -> tuple[bytes, str] | None:
    try:
        doc = json.loads(data.decode("utf-8-sig"))
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None
    text = _Text({})
    doc, what = mutate_value(doc, rng, text)
    return text.dumps(doc), what


def _mutate_jsonl(data: bytes, rng: random.Random) -> tuple[bytes, str] | None:
    lines = data.split(b"\n")
    idx = [i for i, ln in enumerate(lines) if ln.strip()]
    if not idx:
        return None
    i = rng.choice(idx)
    out = _mutate_json(lines[i], rng)
    if out is None:
        return None
    lines[i] = out[0]
    return b"\n".join(lines), f"line {i + 1}: {out[1]}"


def _mutate_zip(data: bytes, rng: random.Random) -> tuple[bytes, str] | None:
    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
        members = [(info.filename, _read_member(zf, info)) for info in zf.infolist()]
    except Exception:
        return None
    jsons = [i for i, (name, _) in enumerate(members) if name.endswith(".json")]
    if not jsons:
        return None
    i = rng.choice(jsons)
    name, raw = members[i]
    if rng.random() < 0.2:
        new, what = mutate_bytes(raw, rng)
    else:
        got = _mutate_json(raw, rng)
        if got is None:
            return None
        new, what = got
    members[i] = (name, new)
    if rng.random() < 0.1:
        members.insert(i, members[i])
    buf = io.BytesIO()
    with warnings.catch_warnings(), zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as out:
        warnings.simplefilter("ignore")  # a duplicated member is one of the mutations
        for n, b in members:
            out.writestr(n, b)
    return buf.getvalue(), f"member {name}: {what}"


def _read_member(zf: zipfile.ZipFile, info: zipfile.ZipInfo) -> bytes:
    if info.compress_type == 93:  # zstd (Inspect): decompress from the local header
        import struct

        import zstandard

        raw = zf.fp
        assert raw is not None
        raw.seek(info.header_offset)
        head = struct.unpack("<IHHHHHIIIHH", raw.read(30))
        raw.seek(info.header_offset + 30 + head[9] + head[10])
        return zstandard.ZstdDecompressor().decompress(raw.read(info.compress_size), max_output_size=1 << 28)
    return zf.read(info)


def make_input(seed: int, samples: list[tuple[str, bytes]], default_name: str) -> tuple[str, bytes, str]:
    """The input for ``seed``: ``(file name, bytes, description)``. Deterministic.

    About one input in eight is arbitrary bytes; the others mutate a sample one to three times.
    """
    rng = random.Random(seed)
    if not samples or rng.random() < 0.125:
        n = rng.choice([0, 1, 8, 64, 512, 4096])
        prefix = rng.choice([b"", b"{", b"[", b"PK\x03\x04", b'{"schema_version": "1.0", "steps": ['])
        return default_name, prefix + rng.randbytes(n), f"random {n} bytes"
    name, data = rng.choice(samples)
    whats = []
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        got: tuple[bytes, str] | None = None
        if rng.random() < 0.7:
            if data[:2] == b"PK":
                got = _mutate_zip(data, rng)
            elif name.endswith((".jsonl", ".ndjson")):
                got = _mutate_jsonl(data, rng)
            else:
                got = _mutate_json(data, rng)
        if got is None:
            got = mutate_bytes(data, rng)  # also when the sample no longer parses
        data, what = got
        whats.append(what)
    return name, data, f"{name}: " + "; ".join(whats)


def load_samples(paths: list[Path], max_bytes: int = 4 << 20) -> list[tuple[str, bytes]]:
    """``(file name, bytes)`` of the sample files (large ones left out to keep inputs fast)."""
    return [(p.name, p.read_bytes()) for p in paths if p.stat().st_size <= max_bytes]


def read_one(path: Path, spec: Any, host: Any, limits: Any = None) -> tuple[str, list[Any], int]:
    """Read one input with one importer in-process: ``(outcome, errors, runs loaded)``.

    An exception escaping the loader is the ``crash`` outcome (its text is the one error).
    """
    from analyzer.errors import LoadError
    from analyzer.jobs import NeverCancel
    from analyzer.loading.read import read_file

    try:
        got = read_file(path, spec, host, NeverCancel(), limits) if limits is not None else \
            read_file(path, spec, host, NeverCancel())
    except BaseException as exc:  # the crash outcome is the point
        return "crash", [LoadError(str(path), None, spec.id, f"{type(exc).__name__}: {exc}")], 0
    traces, errors = got[0], got[2]
    return classify(errors), list(errors), traces.height


def minimise(data: bytes, still_fails: Callable[[bytes], bool], budget: int = 300) -> bytes:
    """Greedy delta-debugging: drop chunks (halving sizes) while ``still_fails`` holds."""
    best = data
    chunk = max(1, len(best) // 2)
    tries = 0
    while chunk >= 1 and tries < budget:
        i, shrunk = 0, False
        while i < len(best) and tries < budget:
            cand = best[:i] + best[i + chunk:]
            tries += 1
            if cand and still_fails(cand):
                best, shrunk = cand, True
            else:
                i += chunk
        if not shrunk:
            chunk //= 2
    return best


def write_bomb_eval(path: Path, inflated_bytes: int = 500 * 1024 * 1024) -> Path:
    """An Inspect ``.eval`` whose one sample member inflates to ``inflated_bytes`` (deflate, ~1000:1).

    Written in 1 MB pieces, so making it holds little memory. About 490 KB for 500 MB.
    """
    header = json.dumps({"version": 2, "status": "success", "eval": {"task": "bomb", "model": "m"}}).encode()
    head, tail = b'{"id": 1, "epoch": 1, "input": "', b'", "messages": []}'
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
        zf.writestr("header.json", header)
        with zf.open("samples/1_epoch_1.json", "w") as fh:
            fh.write(head)
            left = inflated_bytes - len(head) - len(tail)
            piece = b"a" * (1 << 20)
            while left > 0:
                fh.write(piece[: min(left, len(piece))])
                left -= len(piece)
            fh.write(tail)
    return path


# ---- one-record damage (what an analyst counts) --------------------------------------------

RECORD_DAMAGE = ("nan", "infinity", "huge_number", "big_int", "huge_int", "lone_surrogate", "bad_utf8",
                 "nul", "deep_nesting", "escape_storm", "broken_syntax", "missing_key", "null_record",
                 "truncated")
"""Damage done to one record of a multi-record file (:func:`damage_record`)."""

LENIENT_DAMAGE = frozenset({"nan", "infinity", "huge_number", "big_int", "huge_int", "lone_surrogate",
                            "bad_utf8", "nul", "deep_nesting", "escape_storm"})
"""Damage the lenient reader repairs: the record itself should still load."""

_RECORD_LISTS = ("samples", "simulations", "trajectories", "runs", "traces", "data", "results")


def record_spans(data: bytes, name: str) -> list[tuple[str, int, int]]:
    """``(locator, start, end)`` of each record of a JSONL file or JSON record list (character offsets).

    JSONL: each non-blank line (``line N``). JSON: the items of a top-level list (``[i]``) or
    of the first list of objects under one of a few record-list keys (``samples[i]`` ...).
    Other documents have no records (empty list).
    """
    text = data.decode("utf-8-sig", "replace")
    if name.endswith((".jsonl", ".ndjson")):
        out, pos = [], 0
        for lineno, line in enumerate(text.split("\n"), start=1):
            if line.strip():
                out.append((f"line {lineno}", pos, pos + len(line.rstrip("\r"))))
            pos += len(line) + 1
        return out
    try:
        doc = json.loads(text)
    except ValueError:
        return []
    dec = json.JSONDecoder()
    if isinstance(doc, list):
        start, prefix = text.index("["), ""
    elif isinstance(doc, dict):
        key = next((k for k in _RECORD_LISTS if isinstance(doc.get(k), list) and len(doc[k]) >= 2
                    and all(isinstance(x, dict) for x in doc[k])), None)
        if key is None:
            return []
        m = __import__("re").search(r'"' + key + r'"\s*:\s*\[', text)
        if m is None:
            return []
        start, prefix = m.end() - 1, key
    else:
        return []
    out = []
    pos = start + 1
    i = 0
    while True:
        while pos < len(text) and text[pos] in " \t\r\n,":
            pos += 1
        if pos >= len(text) or text[pos] == "]":
            return out
        _v, end = dec.raw_decode(text, pos)
        out.append((f"{prefix}[{i}]", pos, end))
        i += 1
        pos = end


def _with_key(record: str, value: str) -> str:
    body = record[1:].lstrip()
    return '{"zz_damage": ' + value + ("}" if body.startswith("}") else ", " + body)


def damage_record(data: bytes, name: str, span: tuple[str, int, int], kind: str) -> bytes | None:
    """``data`` with the record at ``span`` damaged by ``kind`` (one of :data:`RECORD_DAMAGE`), or None.

    None when the damage does not apply (a record that is not an object, truncating a record
    of a JSON list that is not the last one, which would cut the records after it too).
    """
    text = data.decode("utf-8-sig", "replace")
    bom = "\ufeff" if data.startswith(b"\xef\xbb\xbf") else ""
    _loc, start, end = span
    rec = text[start:end]
    raw: dict[str, bytes] = {}
    is_obj = rec.startswith("{")
    if kind in ("nan", "infinity", "huge_number", "big_int", "huge_int", "lone_surrogate", "deep_nesting",
                "escape_storm", "bad_utf8", "nul", "missing_key") and not is_obj:
        return None
    if kind == "nan":
        new = _with_key(rec, "NaN")
    elif kind == "infinity":
        new = _with_key(rec, "[Infinity, -Infinity]")
    elif kind == "huge_number":
        new = _with_key(rec, "1e400")
    elif kind == "big_int":
        new = _with_key(rec, str(2**64 + 1))
    elif kind == "huge_int":
        new = _with_key(rec, "1" + "0" * 400)
    elif kind == "lone_surrogate":
        new = _with_key(rec, '"\\ud800 lone"')
    elif kind == "deep_nesting":
        new = _with_key(rec, "[" * 600 + "]" * 600)
    elif kind == "escape_storm":
        new = _with_key(rec, '"' + "\\\\" * 200_000 + '"')
    elif kind in ("bad_utf8", "nul"):
        raw["\u2603RAW\u2603"] = b'"bad \xff\xfe\xc3 utf8"' if kind == "bad_utf8" else b'"a\x00b"'
        new = _with_key(rec, '"\u2603RAW\u2603"')
    elif kind == "broken_syntax":
        q = rec.find('"')
        if q < 0:
            return None
        new = rec[:q] + rec[q + 1:]
    elif kind == "missing_key":
        obj = json.loads(rec)
        if not obj:
            return None
        del obj[next(iter(obj))]
        new = json.dumps(obj)
    elif kind == "null_record":
        new = "null"
    elif kind == "truncated":
        last = not text[end:].strip(" \t\r\n]}") or name.endswith((".jsonl", ".ndjson"))
        if not last:
            return None
        new = rec[: max(1, len(rec) // 2)]
    else:
        raise ValueError(kind)
    out = (bom + text[:start] + new + text[end:]).encode("utf-8", "surrogatepass")
    for key, value in raw.items():
        out = out.replace(json.dumps(key, ensure_ascii=False).encode(), value)
    return out


def record_runs(result: Any) -> dict[str, str]:
    """``{record locator: trace id}`` of a load result's runs."""
    return {str(r): str(t) for r, t in zip(result.traces["record"].to_list(), result.traces["trace_id"].to_list(),
                                          strict=True)}


def analyst_losses(base: dict[str, str], got: dict[str, str], damaged: str) -> list[str]:
    """Records other than ``damaged`` that loaded before and are missing or changed now."""
    return [loc for loc, tid in base.items() if loc != damaged and got.get(loc) != tid]


@dataclass
class Case:
    """One fuzz input and, for a one-record damage, what an analyst may lose.

    Attributes:
        name: File name.
        data: File bytes.
        what: Description of the mutation.
        sample: Index (in the samples given) of the sample damaged one record at a time
            (None for other mutations; two samples may share a name).
        damaged: Locator of the damaged record (``line 3``, ``[1]``; ``""`` for a BOM, which
            damages no record).
    """

    name: str
    data: bytes
    what: str
    sample: int | None = None
    damaged: str | None = None


RECORD_SHARE = 0.3
"""Share of fuzz inputs that damage one record of a multi-record sample (:func:`make_case`)."""


def make_case(seed: int, samples: list[tuple[str, bytes]], default_name: str,
              record_share: float = RECORD_SHARE) -> Case:
    """The input for ``seed``; about ``record_share`` of them damage one record. Deterministic.

    A record damage picks a sample with two records or more, a record (the first one half of
    the time: a damaged first record or first line must not decide the file) and a kind of
    :data:`RECORD_DAMAGE` (or a byte-order mark before the file).
    """
    rng = random.Random(seed ^ 0x5EED)
    multi = [i for i, (n, d) in enumerate(samples) if len(record_spans(d, n)) >= 2]
    if multi and rng.random() < record_share:
        for _attempt in range(16):  # a damage that does not apply to the record picked: pick again
            k = rng.choice(multi)
            name, data = samples[k]
            spans = record_spans(data, name)
            kind = rng.choice((*RECORD_DAMAGE, "bom"))
            if kind == "bom":
                return Case(name, b"\xef\xbb\xbf" + data.removeprefix(b"\xef\xbb\xbf"), f"{name}: bom", k, "")
            span = spans[0] if rng.random() < 0.5 else rng.choice(spans)
            new = damage_record(data, name, span, kind)
            if new is not None:
                return Case(name, new, f"{name}: {span[0]} {kind}", k, span[0])
    name, data, what = make_input(seed, samples, default_name)
    return Case(name, data, what)


def baseline_runs(path: Path, spec: Any, host: Any) -> dict[str, str]:
    """``{record locator: run id}`` of a sample read with one importer (see :func:`record_runs`)."""
    from analyzer.jobs import NeverCancel
    from analyzer.loading.read import read_file

    return record_runs(read_file(path, spec, host, NeverCancel()))


def record_loss(case: Case, base: dict[str, str], got: dict[str, str], errors: list[Any], claimed: bool) -> str:
    """What an analyst lost to a one-record damage, or ``""`` (see :func:`make_case`).

    A loss is any record other than the damaged one that loaded from the sample and is
    missing or changed now, the file not being claimed, or a whole-file error (the file no
    longer parses as a whole). For samples whose records are spans or steps of fewer runs,
    at most the run holding the damaged line may change.
    """
    if not base:
        return ""
    if not claimed:
        return "file no longer claimed"
    whole = [e for e in errors if e.record is None]
    if whole:
        return f"whole-file error: {whole[0].reason}"
    if case.damaged is not None and (case.damaged in base or case.damaged == ""):
        lost = analyst_losses(base, got, case.damaged)
        return f"records lost: {', '.join(lost[:5])}" if lost else ""
    changed = set(base.values()) - set(got.values())
    return f"runs lost: {len(changed)}" if len(changed) > 1 else ""


def read_runs(path: Path, spec: Any, host: Any) -> tuple[str, list[Any], dict[str, str]]:
    """Like :func:`read_one`, with the runs read: ``(outcome, errors, {record: run id})``."""
    from analyzer.errors import LoadError
    from analyzer.jobs import NeverCancel
    from analyzer.loading.read import read_file

    try:
        got = read_file(path, spec, host, NeverCancel())
    except BaseException as exc:  # the crash outcome is the point
        return "crash", [LoadError(str(path), None, spec.id, f"{type(exc).__name__}: {exc}")], {}
    return classify(got.errors), list(got.errors), record_runs(got)


def claimed_by(path: Path, host: Any) -> str | None:
    """Id of the importer the loader picks for ``path`` (None when nobody claims it)."""
    from analyzer.loading.loader import claim

    spec, _cands, _problem = claim(path, host)
    return None if spec is None else str(spec.id)
