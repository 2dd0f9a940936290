"""The Ray engine: the same per-run analysis as :func:`analyzer.pipeline.analyze`, on a Ray cluster.

``trajscope analyze --engine ray [--address ADDR] [--workers N]`` lands here. Ray (``ray[data]``,
the optional extra ``trajscope[ray]``) is imported only inside this module's functions.

How it runs:

- The driver turns the runs still to analyse into a Ray Dataset: blocks of a few runs, each run a
  pickled :class:`~analyzer.schema.models.Trajectory` rebuilt exactly as the local engine rebuilds it.
- ``map_batches`` sends the blocks to an actor pool (``ActorPoolStrategy``, one actor per worker,
  one CPU each). Each actor loads the models once (the embedder, and the judge when asked for),
  then runs :func:`analyzer.pipeline.analyze_one` on every run it receives: the same code, weights
  and seeds as the local engine, so the results are identical.
- The driver streams the results back, writes each batch to the :class:`ResultStore` as it
  arrives (a killed driver loses only the batches still in flight), shows a progress bar with an
  ETA, and assembles the same :class:`~analyzer.analysis.result.AnalysisResult` as the local
  engine, in the order of the traces frame.
- A killed worker is restarted by Ray and its batch retried; a re-run skips every run already in
  the store (by content hash).

Without an address, a local Ray instance is started (and stopped at the end); with one, the
cluster's nodes need TrajScope installed.
"""

from __future__ import annotations

import contextlib
import logging
import os
import pickle
import signal
import tempfile
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from analyzer.analysis.result import AnalysisResult, RunAnalysis
from analyzer.attribution.ranker import Ranker
from analyzer.engines.resume import ResultStore, decode_run, encode_run
from analyzer.frames.build import trajectories_from_frames
from analyzer.jobs import Progress, no_progress
from analyzer.pipeline import AnalyzeOptions

FAULT_ENV = "TRAJSCOPE_RAY_FAULT"
"""Fault injection for tests: ``kill-worker:K`` (one worker kills itself after K runs, once) or
``kill-driver:K`` (the driver kills itself after storing K runs)."""

FAULT_MARKER_ENV = "TRAJSCOPE_RAY_FAULT_MARKER"
"""File the worker fault creates when it fires (default: a temporary file, removed at the end)."""

PASS_ENV_PREFIXES = ("TRAJSCOPE_", "HF_", "TRANSFORMERS_", "SENTENCE_TRANSFORMERS_")
"""Driver environment variables a local Ray instance's workers get (cache folders, offline flags)."""

ModelLoader = Callable[[], tuple[Any, Any]]
"""Returns ``(judge, embedder)``; called once in each actor (must be picklable)."""


class RayUnavailable(RuntimeError):
    """Ray is not installed (``pip install 'trajscope[ray]'``) or the cluster cannot be reached."""


@dataclass
class RayConfig:
    """Where and how wide the Ray engine runs.

    Attributes:
        address: Address of an existing cluster (``ray://host:10001`` or ``host:6379``); None
            starts a local instance.
        workers: Actors in the pool (default: the local CPU count, or the cluster's CPUs).
        runs_per_batch: Runs per block and per ``map_batches`` call (the unit a killed
            driver can lose and a killed worker redoes).
        object_store_bytes: Object store of a local instance.
        fault: Fault injection (see :data:`FAULT_ENV`); default: read from the environment.
    """

    address: str | None = None
    workers: int | None = None
    runs_per_batch: int = 4
    object_store_bytes: int = 256 * 1024 * 1024
    fault: str | None = field(default_factory=lambda: os.environ.get(FAULT_ENV) or None)


@dataclass
class RayRun:
    """What :func:`analyze_on_ray` did.

    Attributes:
        result: The analysis of every run (same frames as the local engine).
        reused: Runs read from the result store.
        analysed: Runs analysed now.
        workers: Actors in the pool (0 when nothing was left to analyse).
    """

    result: AnalysisResult
    reused: int
    analysed: int
    workers: int


def _fault(spec: str | None, kind: str) -> int | None:
    if not spec or not spec.startswith(kind + ":"):
        return None
    try:
        return max(0, int(spec.split(":", 1)[1]))
    except ValueError:
        return None


class RunAnalyzer:
    """One actor of the pool: loads the models once, then analyses the runs of each batch.

    Args:
        load_models: Returns ``(judge, embedder)`` (the judge None for the cheap analysis).
        ranker: Ranker params to use (None: the shipped ones).
        options: Analysis knobs.
        env: Environment variables to set before loading anything (cache folders, offline flags).
        fault: Fault injection spec (tests).
        fault_marker: File whose creation makes a worker fault fire only once.
    """

    def __init__(self, load_models: ModelLoader, ranker: Ranker | None, options: AnalyzeOptions,
                 env: dict[str, str], fault: str | None = None, fault_marker: str | None = None) -> None:
        os.environ.update(env)
        os.environ.setdefault("TRAJSCOPE_JUDGE_THREADS", "1")  # the actor holds one CPU (results do not change)
        from analyzer.pipeline import JudgeState
        from analyzer.plugin_host.registry import default_host

        self.host = default_host()
        self.ranker = ranker or Ranker.load()
        self.options = options
        judge, self.embedder = load_models()
        self.state = JudgeState(judge)
        inner = getattr(self.embedder, "inner", self.embedder)
        if inner is not None:
            # hold a loaded model from the start; a model that cannot load fails per run, as locally
            with contextlib.suppress(Exception):
                inner.embed(["warm-up"])
        self.kill_after = _fault(fault, "kill-worker")
        self.fault_marker = fault_marker
        self.done = 0

    def __call__(self, batch: Any) -> Any:
        """Analyse the runs of one batch (a pyarrow table of ``idx``, ``trace_id``, ``payload``)."""
        import pyarrow as pa

        from analyzer.pipeline import analyze_one

        out: list[bytes] = []
        for payload in batch.column("payload").to_pylist():
            trajectory = pickle.loads(payload)  # written by this engine's driver, never read from disk
            ra = analyze_one(trajectory, host=self.host, ranker=self.ranker, judge=self.state,
                             embedder=self.embedder, options=self.options)
            out.append(encode_run(ra))
            self.done += 1
            self._maybe_die()
        off = self.state.disabled_reason or ""
        return pa.table({"idx": batch.column("idx"), "trace_id": batch.column("trace_id"),
                         "result": pa.array(out, pa.binary()), "judge_off": pa.array([off] * len(out), pa.string())})

    def _maybe_die(self) -> None:
        if self.kill_after is None or self.done < self.kill_after or not self.fault_marker:
            return
        try:
            fd = os.open(self.fault_marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            return
        os.close(fd)
        os.kill(os.getpid(), signal.SIGKILL)


class CorpusRunAnalyzer(RunAnalyzer):
    """An actor that reads its runs' steps from the corpus partitions itself.

    Each batch holds rows of a corpus ``runs`` file (as Ray Data read them) and their ``path``;
    the actor reads the steps of those runs from the matching ``steps`` file (only the row groups
    that can hold them) and skips the runs in ``skip`` (already finished).

    Args:
        skip: Run ids not to analyse.
        **kwargs: As for :class:`RunAnalyzer`.
    """

    def __init__(self, skip: frozenset[str], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.skip = skip

    def __call__(self, batch: Any) -> Any:
        """Analyse the runs of one batch of the ``runs`` table."""
        import pyarrow as pa

        from analyzer.pipeline import analyze_one

        runs = pl.from_arrow(batch)
        assert isinstance(runs, pl.DataFrame)
        runs = runs.filter(~pl.col("trace_id").is_in(pl.Series(list(self.skip), dtype=pl.Utf8).implode()))
        ids: list[str] = []
        out: list[bytes] = []
        for (path,), part in runs.partition_by("path", as_dict=True, maintain_order=True).items():
            steps_file = Path(str(path)).parent.parent.parent / "steps" / Path(str(path)).parent.name / "part-0.parquet"
            wanted = part["trace_id"].implode()
            steps = pl.scan_parquet(steps_file).filter(pl.col("trace_id").is_in(wanted)).collect()
            for trajectory in trajectories_from_frames(part.drop("path"), steps):
                ra = analyze_one(trajectory, host=self.host, ranker=self.ranker, judge=self.state,
                                 embedder=self.embedder, options=self.options)
                ids.append(trajectory.id)
                out.append(encode_run(ra))
                self.done += 1
                self._maybe_die()
        off = self.state.disabled_reason or ""
        return pa.table({"trace_id": pa.array(ids, pa.string()), "result": pa.array(out, pa.binary()),
                         "judge_off": pa.array([off] * len(out), pa.string())})


def read_runs_partition(batch: Any) -> Any:
    """Ray Data stage: the rows of the corpus ``runs`` files named in a batch, with their ``path``."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    tables = []
    for path in batch.column("path").to_pylist():
        t = pq.read_table(path)
        tables.append(t.append_column("path", pa.array([path] * t.num_rows, pa.string())))
    return pa.concat_tables(tables)


def analyze_corpus_on_ray(
    root: Path,
    store: ResultStore,
    *,
    load_models: ModelLoader,
    config: RayConfig | None = None,
    ranker: Ranker | None = None,
    options: AnalyzeOptions | None = None,
    progress: Progress = no_progress,
) -> RayRun:
    """Analyse the runs of a corpus folder not yet in ``store``, Ray Data reading the corpus partitions.

    The workers must see ``root`` (a local instance, or a folder shared by the cluster's nodes).
    Results go to ``store`` batch by batch; :func:`analyzer.corpus.analysis.finalize` then writes
    them into the corpus. ``RayRun.result`` is empty here (the results are in the store).

    Raises:
        RayUnavailable: Ray is missing or cannot start.
    """
    from analyzer.corpus import Corpus
    from analyzer.corpus.analysis import partitions
    from analyzer.corpus.store import part_path

    config = config or RayConfig()
    options = options or AnalyzeOptions()
    corpus = Corpus(root)
    all_ids = set(corpus.runs().select("trace_id").collect()["trace_id"].to_list())
    done = store.ids() & all_ids
    total = len(all_ids)
    todo = total - len(done)
    workers = 0
    if todo:
        ray, started, workers = connect(config)
        try:
            import ray.data

            size = max(1, config.runs_per_batch)
            files = [str(part_path(corpus.root.resolve(), "runs", src)) for src in partitions(corpus)]
            # A Ray Data stage reads the partitions, one file per task. It takes no CPU slot: the
            # actors hold one each, and a reader waiting for a slot would never run (read_parquet's
            # file listing asks for a CPU; it also races on fsspec's optional HTTP filesystem import).
            ds = ray.data.from_items([{"path": f} for f in files]).map_batches(
                read_runs_partition, batch_size=1, batch_format="pyarrow", num_cpus=0)
            out = ds.map_batches(
                CorpusRunAnalyzer, batch_size=size, batch_format="pyarrow", num_cpus=1,
                compute=ray.data.ActorPoolStrategy(size=workers),
                fn_constructor_kwargs={"skip": frozenset(done), "load_models": load_models, "ranker": ranker,
                                       "options": options, "env": _worker_env(config), "fault": config.fault,
                                       "fault_marker": os.environ.get(FAULT_MARKER_ENV)})
            finished = len(done)
            progress(finished, total, "")
            for batch in out.iter_batches(batch_size=None, batch_format="pyarrow"):
                rows = list(zip(batch.column("trace_id").to_pylist(), batch.column("result").to_pylist(), strict=True))
                finished += store.add(rows)
                progress(finished, total, f"{finished - len(done)}/{todo} analysed")
        finally:
            if started:
                ray.shutdown()
    progress(total, total, "done")
    return RayRun(AnalysisResult(), len(done), todo, workers)


def _worker_env(config: RayConfig) -> dict[str, str]:
    """Driver environment the actors get: everything relevant locally, only offline flags on a cluster."""
    prefixes = ("HF_", "TRANSFORMERS_") if config.address else PASS_ENV_PREFIXES
    return {k: v for k, v in os.environ.items() if k.startswith(prefixes)}


def _blocks(traces: pl.DataFrame, steps: pl.DataFrame, todo: list[int], size: int) -> Iterator[Any]:
    """Pyarrow tables of ``size`` runs each: position in ``traces``, run id, pickled trajectory."""
    import pyarrow as pa

    ids: list[str] = traces["trace_id"].to_list()
    wanted = {ids[i] for i in todo}
    groups = {k[0]: g for k, g in steps.filter(pl.col("trace_id").is_in(list(wanted)))
              .partition_by("trace_id", as_dict=True, maintain_order=True).items()}
    empty = steps.clear()
    for at in range(0, len(todo), size):
        chunk = todo[at: at + size]
        sub = traces[chunk]
        sub_steps = pl.concat([groups.get(ids[i], empty) for i in chunk], how="vertical_relaxed")
        runs = trajectories_from_frames(sub, sub_steps)
        yield pa.table({"idx": pa.array(chunk, pa.int64()), "trace_id": pa.array([ids[i] for i in chunk], pa.string()),
                        "payload": pa.array([pickle.dumps(t, protocol=5) for t in runs], pa.binary())})


def _runtime_env() -> dict[str, Any]:
    """Environment of a local instance's workers: this code first on the path, cache folders, flags."""
    import analyzer

    root = str(Path(analyzer.__file__).resolve().parents[1])
    env = {k: v for k, v in os.environ.items() if k.startswith(PASS_ENV_PREFIXES)}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH", "")) if p)
    return {"env_vars": env}


def connect(config: RayConfig) -> tuple[Any, bool, int]:
    """Connect to (or start) Ray; returns ``(ray module, started here, workers)``."""
    try:
        import ray
        import ray.data
    except ImportError as exc:
        raise RayUnavailable("the Ray engine needs Ray: pip install 'trajscope[ray]'") from exc
    started = False
    if not ray.is_initialized():
        try:
            if config.address:
                ray.init(address=config.address, logging_level=logging.WARNING, log_to_driver=False)
            else:
                cpus = max(1, config.workers or os.cpu_count() or 1)
                ray.init(num_cpus=cpus, include_dashboard=False, object_store_memory=config.object_store_bytes,
                         logging_level=logging.WARNING, log_to_driver=False, runtime_env=_runtime_env())
        except Exception as exc:  # a wrong address, a cluster that is down
            where = config.address or "a local instance"
            raise RayUnavailable(f"cannot start Ray on {where}: {type(exc).__name__}: {exc}") from exc
        started = True
    resources: dict[str, float] = ray.cluster_resources()  # type: ignore[no-untyped-call]
    workers = config.workers or max(1, int(resources.get("CPU", 1)))
    ctx = ray.data.DataContext.get_current()
    ctx.enable_progress_bars = False
    ctx.print_on_execution_start = False
    logging.getLogger("ray.data").setLevel(logging.ERROR)
    return ray, started, workers


def analyze_on_ray(
    traces: pl.DataFrame,
    steps: pl.DataFrame,
    *,
    load_models: ModelLoader,
    store: ResultStore | None = None,
    config: RayConfig | None = None,
    ranker: Ranker | None = None,
    options: AnalyzeOptions | None = None,
    progress: Progress = no_progress,
) -> RayRun:
    """Analyse every run of the frames on Ray, reusing the finished runs of ``store``.

    Args:
        traces: Traces frame (TRACE_COLUMNS).
        steps: Steps frame (STEP_COLUMNS).
        load_models: Called once per actor; returns ``(judge, embedder)``.
        store: Finished runs (read first, then written batch by batch); None keeps nothing.
        config: Cluster address, workers, batch size.
        ranker: Ranker (default: the shipped params).
        options: Analysis knobs.
        progress: Called as runs finish (driver side).

    Returns:
        The result (runs in the order of ``traces``) and how many runs were reused or analysed.

    Raises:
        RayUnavailable: Ray is missing or cannot start.
    """
    config = config or RayConfig()
    options = options or AnalyzeOptions()
    ids: list[str] = traces["trace_id"].to_list()
    done = store.load() if store is not None else {}
    results: dict[int, RunAnalysis] = {}
    todo: list[int] = []
    for i, tid in enumerate(ids):
        if tid in done:
            results[i] = decode_run(done[tid])
        else:
            todo.append(i)
    total = len(ids)
    reused = len(results)
    judge_off = ""
    workers = 0
    if todo:
        ray, started, workers = connect(config)
        try:
            judge_off = _run(ray, traces, steps, todo, results, load_models=load_models, store=store,
                             config=config, workers=workers, ranker=ranker, options=options,
                             progress=lambda n: progress(n, total, f"{n - reused}/{len(todo)} analysed"))
        finally:
            if started:
                ray.shutdown()
    progress(total, total, "done")
    result = AnalysisResult.from_runs([results[i] for i in range(total)])
    if judge_off and judge_off not in result.errors:
        result.errors.insert(0, judge_off)
    return RayRun(result, reused, len(todo), workers)


def _run(ray: Any, traces: pl.DataFrame, steps: pl.DataFrame, todo: list[int], results: dict[int, RunAnalysis], *,
         load_models: ModelLoader, store: ResultStore | None, config: RayConfig, workers: int,
         ranker: Ranker | None, options: AnalyzeOptions, progress: Callable[[int], None]) -> str:
    """Stream the runs of ``todo`` through the actor pool into ``results``; returns a judge-off reason."""
    import ray.data

    env = _worker_env(config)
    given = os.environ.get(FAULT_MARKER_ENV)
    marker = given or str(Path(tempfile.gettempdir()) / f"trajscope-ray-fault-{uuid.uuid4().hex}")
    size = max(1, config.runs_per_batch)
    ds = ray.data.from_arrow(list(_blocks(traces, steps, todo, size)))
    out = ds.map_batches(
        RunAnalyzer, batch_size=size, batch_format="pyarrow", num_cpus=1,
        compute=ray.data.ActorPoolStrategy(size=workers),
        fn_constructor_kwargs={"load_models": load_models, "ranker": ranker, "options": options, "env": env,
                               "fault": config.fault, "fault_marker": marker})
    kill_driver = _fault(config.fault, "kill-driver")
    judge_off = ""
    stored = 0
    progress(len(results))
    try:
        for batch in out.iter_batches(batch_size=None, batch_format="pyarrow"):
            rows = list(zip(batch.column("idx").to_pylist(), batch.column("trace_id").to_pylist(),
                            batch.column("result").to_pylist(), batch.column("judge_off").to_pylist(), strict=True))
            if store is not None:
                stored += store.add((tid, payload) for _, tid, payload, _ in rows)
            for idx, _, payload, off in rows:
                results[int(idx)] = decode_run(payload)
                judge_off = judge_off or off
            progress(len(results))
            if kill_driver is not None and stored >= kill_driver:
                os.kill(os.getpid(), signal.SIGKILL)
    finally:
        if not given:
            Path(marker).unlink(missing_ok=True)
    return judge_off
