"""Mutation fuzzer over every registered importer, in worker processes.

For each importer of the plugin host (so new importers are covered as soon as they are
registered), inputs made by :mod:`bench.fuzzing` (arbitrary bytes and structured or byte
mutations of the committed samples it claims) are read with that importer through the
loader's ``read_file``, one input at a time, in worker processes. A worker that does not
answer within ``--hang-seconds`` (default 10) is killed and the input counted as a hang.

About 30% of the inputs (for importers with a multi-record sample) damage exactly one record
(:func:`bench.fuzzing.make_case`: non-finite and huge numbers, big integers, lone surrogates,
bad UTF-8, NUL, deep nesting, escape storms, broken syntax, a missing key, a null or truncated
record, a BOM; the first record half the time). Those are counted as an analyst counts: any
other record of the sample missing or changed, the file no longer claimed by the importer, or
a whole-file error (the file no longer parses as a whole) is ``lost``.

Printed per importer: counts of ``loaded`` / ``reported`` (errors naming the bad record, or a
deliberate whole-file refusal) / ``lost`` (the loader's catch-all: runs lost outside the bad
record; or a one-record damage that cost another record) / ``crash`` (an exception out of the loader) / ``hang``; inputs per second; the slowest
input; and the peak RSS of the workers. Inputs that were lost, crashed or hung are made again
(each is named by its seed), shrunk by delta debugging and written to ``--repro-dir`` as
``<importer>__<outcome>-<seed><suffix>``; once the bug is fixed, move the file to
``tests/data/fuzz/`` (``tests/test_importers_fuzz.py`` loads every file there).

Usage::

    python bench/fuzz.py                                 # 100,000 inputs per importer
    python bench/fuzz.py --per-importer 2000 --workers 2
    python bench/fuzz.py --importer inspect_eval --seconds 60 --json out.json

The exit code is 1 when anything was lost, crashed or hung, else 0.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import tempfile
import time
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import fuzzing  # noqa: E402

_SEED_BASE = 1_000_003  # seeds of importer k start at k * _SEED_BASE


@dataclass
class Tally:
    """Outcomes of one importer."""

    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(fuzzing.OUTCOMES, 0))
    bad: list[tuple[str, int, str]] = field(default_factory=list)  # (outcome, seed, reason)
    slowest: tuple[float, int] = (0.0, -1)
    seconds: float = 0.0
    peak_rss_mb: float = 0.0
    done: int = 0


def _worker(conn: Connection, importer_id: str, seeds: list[int], memory_bytes: int) -> None:
    """Child: read each seed's input, send ``(seed, outcome, seconds, reason)`` per input."""
    import resource
    import warnings

    warnings.simplefilter("ignore")  # zipfile warns on the duplicated members the mutations write
    from analyzer.plugin_host.registry import default_host

    host = default_host()
    spec = host.importer_spec(importer_id)
    samples = fuzzing.load_samples(fuzzing.samples_by_importer(host).get(importer_id, []))
    default_name = fuzzing.fuzz_name(spec)
    with tempfile.TemporaryDirectory(prefix="trajscope-fuzz-") as tmp:
        if memory_bytes > 0:
            _cap_growth(Path(tmp), spec, host, samples, default_name, memory_bytes)
        bases = _baselines(Path(tmp), spec, host, samples)
        for seed in seeds:
            case = fuzzing.make_case(seed, samples, default_name)
            sub = Path(tmp) / str(seed % 2)  # a fresh folder: no sidecar of a previous input
            sub.mkdir(exist_ok=True)
            path = sub / case.name
            path.write_bytes(case.data)
            t0 = time.perf_counter()
            outcome, errors, got = fuzzing.read_runs(path, spec, host)
            reason = ""
            if case.sample is not None and outcome != "crash":
                claimed = fuzzing.claimed_by(path, host) == spec.id
                reason = fuzzing.record_loss(case, bases[case.sample], got, errors, claimed)
                if reason:
                    outcome = "lost"
                    reason = f"{case.what}: {reason}"
            dt = time.perf_counter() - t0
            if outcome in ("lost", "crash") and not reason:
                bad = [e for e in errors if outcome == "crash" or fuzzing.is_lost(e.record, e.reason)]
                reason = bad[0].reason if bad else ""
            conn.send((seed, outcome, dt, reason))
            path.unlink()
    conn.send(("done", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024))
    conn.close()


def _baselines(tmp: Path, spec: Any, host: Any, samples: list[tuple[str, bytes]]) -> list[dict[str, str]]:
    """``{record: run id}`` of each sample (by index), read as the fuzz inputs are."""
    out: list[dict[str, str]] = []
    folder = tmp / "base"
    folder.mkdir(exist_ok=True)
    for name, data in samples:
        path = folder / name
        path.write_bytes(data)
        out.append(fuzzing.baseline_runs(path, spec, host))
        path.unlink()
    return out


def _address_space_bytes() -> int:
    """This process's virtual size (``VmSize``), 0 where ``/proc`` is not available."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmSize:"):
                return int(line.split()[1]) << 10
    except OSError:
        pass
    return 0


def _cap_growth(tmp: Path, spec: Any, host: Any, samples: Any, default_name: str, memory_bytes: int) -> None:
    """Cap the worker's address space at its warmed-up size plus ``memory_bytes``.

    The cap is on growth, not on the absolute size: a warmed-up worker already reserves
    more than 2 GB of address space (polars' thread pool, one glibc malloc arena per
    thread) while its resident set is about 140 MB, and an absolute cap made those
    reservations fail (``can't start new thread``, aborts in polars) on good inputs. One
    input is read first so that the thread pools exist before the cap is set.
    """
    import resource

    name, data, _what = fuzzing.make_input(0, samples, default_name)
    warm = tmp / "warm"
    warm.mkdir(exist_ok=True)
    (warm / name).write_bytes(data)
    fuzzing.read_one(warm / name, spec, host)
    (warm / name).unlink()
    base = _address_space_bytes()
    hard = resource.getrlimit(resource.RLIMIT_AS)[1]
    cap = base + memory_bytes
    if hard != resource.RLIM_INFINITY:
        cap = min(cap, hard)
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))


def _run_importer(importer_id: str, seeds: list[int], args: argparse.Namespace) -> Tally:
    """Feed the seeds to worker processes, restarting one after a hang."""
    ctx = multiprocessing.get_context("spawn")
    tally = Tally()
    start = time.monotonic()
    queue = list(seeds)
    chunk = max(1, len(queue) // args.workers + 1)
    pending = [queue[i:i + chunk] for i in range(0, len(queue), chunk)]
    live: list[tuple[Any, Connection, list[int], int]] = []  # (process, conn, seeds, next index)

    def spawn(batch: list[int]) -> None:
        parent, child = ctx.Pipe(duplex=False)
        proc = ctx.Process(target=_worker, args=(child, importer_id, batch, args.memory_mb << 20), daemon=True)
        proc.start()
        child.close()
        live.append((proc, parent, batch, 0))

    while pending and len(live) < args.workers:
        spawn(pending.pop(0))
    last_msg = {id(c): time.monotonic() for _, c, _, _ in live}
    while live:
        if args.seconds and time.monotonic() - start > args.seconds:
            for proc, conn, _, _ in live:
                proc.kill()
                conn.close()
            live.clear()
            break
        # Wait on every worker at once and drain each ready pipe: polling the workers in
        # turn, one message per pass, capped the fuzzer at about 50 inputs/s per worker.
        ready = set(map(id, wait([c for _, c, _, _ in live], timeout=0.2)))
        for k, (proc, conn, batch, nxt) in enumerate(list(live)):
            last_msg.setdefault(id(conn), time.monotonic())
            if id(conn) in ready:
                finished = False
                while conn.poll(0):
                    try:
                        msg = conn.recv()
                    except EOFError:
                        msg = None
                    last_msg[id(conn)] = time.monotonic()
                    if msg is None or msg[0] == "done":
                        if msg is not None:
                            tally.peak_rss_mb = max(tally.peak_rss_mb, msg[1])
                        elif nxt < len(batch):  # the worker died without a word: count it a crash
                            tally.counts["crash"] += 1
                            tally.bad.append(("crash", batch[nxt], f"worker died (exit {proc.exitcode})"))
                            tally.done += 1
                            pending.insert(0, batch[nxt + 1:])
                        finished = True
                        break
                    seed, outcome, dt, reason = msg
                    tally.counts[outcome] += 1
                    tally.done += 1
                    if dt > tally.slowest[0]:
                        tally.slowest = (dt, seed)
                    if outcome in ("lost", "crash"):
                        tally.bad.append((outcome, seed, reason))
                    nxt += 1
                live[k] = (proc, conn, batch, nxt)
                if finished:
                    proc.join(5)
                    conn.close()
                    live.remove((proc, conn, batch, nxt))
                    while pending and not pending[0]:
                        pending.pop(0)
                    if pending:
                        spawn(pending.pop(0))
                    break
                continue
            waited = time.monotonic() - last_msg[id(conn)]
            limit = args.hang_seconds + (30 if nxt == 0 else 0)  # the first input includes start-up
            if waited > limit:  # hang: kill, count, go on after it
                proc.kill()
                proc.join(5)
                conn.close()
                live.remove((proc, conn, batch, nxt))
                tally.counts["hang"] += 1
                tally.done += 1
                tally.bad.append(("hang", batch[nxt], f"no answer in {args.hang_seconds:g} s"))
                if tally.slowest[0] < waited:
                    tally.slowest = (waited, batch[nxt])
                rest = batch[nxt + 1:]
                if rest:
                    spawn(rest)
                break
    tally.seconds = time.monotonic() - start
    return tally


def _save_reproducers(importer_id: str, tally: Tally, args: argparse.Namespace) -> list[Path]:
    """Make the failing inputs again, shrink them and write them to the reproducer folder."""
    from analyzer.plugin_host.registry import default_host

    host = default_host()
    spec = host.importer_spec(importer_id)
    samples = fuzzing.load_samples(fuzzing.samples_by_importer(host).get(importer_id, []))
    out_dir = Path(args.repro_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    saved: list[Path] = []
    seen: set[str] = set()
    for outcome, seed, reason in tally.bad:
        key = f"{outcome}:{reason.split('(')[0]}:{reason.split(':')[0]}"
        if key in seen or len(saved) >= args.max_repros:
            continue
        seen.add(key)
        name, data, _what = fuzzing.make_input(seed, samples, fuzzing.fuzz_name(spec))
        suffix = "".join(Path(name).suffixes) or ".json"
        target = out_dir / f"{importer_id}__{outcome}-{seed}{suffix}"
        if outcome != "hang" and args.minimise:
            with tempfile.TemporaryDirectory() as tmp:
                probe = Path(tmp) / name

                def still(cand: bytes, probe: Path = probe, outcome: str = outcome, reason: str = reason) -> bool:
                    probe.write_bytes(cand)
                    got, errors, _ = fuzzing.read_one(probe, spec, host)
                    return got == outcome and any(e.reason.split("(")[0] == reason.split("(")[0] for e in errors)

                data = fuzzing.minimise(data, still)
        target.write_bytes(data)
        saved.append(target)
    return saved


def main(argv: list[str] | None = None) -> int:
    """Run the fuzzer and print the table."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--per-importer", type=int, default=100_000, help="inputs per importer (default 100000)")
    p.add_argument("--seconds", type=float, default=0.0, help="time budget per importer (0 = none)")
    p.add_argument("--importer", action="append", help="only these importer ids (repeatable)")
    p.add_argument("--workers", type=int, default=max(1, min(2, os.cpu_count() or 1)))
    p.add_argument("--hang-seconds", type=float, default=10.0)
    p.add_argument("--memory-mb", type=int, default=2048, help="address-space growth allowed to each worker beyond its warmed-up size")
    p.add_argument("--seed", type=int, default=0, help="offset of the seeds")
    p.add_argument("--repro-dir", default=str(ROOT / "bench" / "fuzz_out"))
    p.add_argument("--max-repros", type=int, default=5, help="reproducers kept per importer")
    p.add_argument("--no-minimise", dest="minimise", action="store_false")
    p.add_argument("--json", help="also write the figures to this JSON file")
    args = p.parse_args(argv)

    from analyzer.plugin_host.registry import default_host

    all_ids = [s.id for s in default_host().importers()]
    ids = list(all_ids)
    if args.importer:
        ids = [i for i in ids if i in set(args.importer)]
    rows: dict[str, Tally] = {}
    header = f"{'importer':<16}{'inputs':>8}{'loaded':>8}{'reported':>10}{'lost':>6}{'crash':>7}{'hang':>6}" \
             f"{'in/s':>7}{'slowest s':>11}{'peak RSS MB':>13}"
    print(header, flush=True)
    for importer_id in ids:
        # seeds follow the importer's place among all importers, so `--importer X` replays
        # exactly the inputs a full run gave X
        base = args.seed + all_ids.index(importer_id) * _SEED_BASE
        t = _run_importer(importer_id, list(range(base, base + args.per_importer)), args)
        rows[importer_id] = t
        c = t.counts
        print(f"{importer_id:<16}{t.done:>8}{c['loaded']:>8}{c['reported']:>10}{c['lost']:>6}{c['crash']:>7}"
              f"{c['hang']:>6}{t.done / max(t.seconds, 1e-9):>7.0f}{t.slowest[0]:>11.2f}{t.peak_rss_mb:>13.0f}",
              flush=True)
    total = {o: sum(t.counts[o] for t in rows.values()) for o in fuzzing.OUTCOMES}
    slow_id, slow = max(rows.items(), key=lambda kv: kv[1].slowest[0]) if rows else ("-", Tally())
    peak = max((t.peak_rss_mb for t in rows.values()), default=0.0)
    print(f"total: {sum(t.done for t in rows.values())} inputs; " + ", ".join(f"{o} {n}" for o, n in total.items()))
    print(f"slowest input: {slow_id} seed {slow.slowest[1]} ({slow.slowest[0]:.2f} s); peak worker RSS {peak:.0f} MB")
    saved: list[Path] = []
    for importer_id, t in rows.items():
        if t.bad:
            for outcome, seed, reason in t.bad[:3]:
                print(f"  {importer_id} {outcome} seed {seed}: {reason[:160]}")
            saved += _save_reproducers(importer_id, t, args)
    for s in saved:
        print(f"reproducer: {s}")
    if args.json:
        import json

        Path(args.json).write_text(json.dumps({
            "per_importer": {i: {"inputs": t.done, **t.counts, "seconds": round(t.seconds, 1),
                                 "slowest_seconds": round(t.slowest[0], 3), "slowest_seed": t.slowest[1],
                                 "peak_rss_mb": round(t.peak_rss_mb)} for i, t in rows.items()},
            "total": total, "peak_rss_mb": round(peak), "reproducers": [str(s) for s in saved],
        }, indent=2))
    return 1 if total["lost"] or total["crash"] or total["hang"] else 0


if __name__ == "__main__":
    sys.exit(main())
