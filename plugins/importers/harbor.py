"""Harbor job folders: a trial's verifier tests (CTRF) and trials that left no trajectory.

A Harbor job folder (``harbor run`` writes ``jobs/<job name>/``) holds one folder per trial:
``agent/trajectory.json`` (ATIF, read by :mod:`plugins.importers.atif`), ``result.json`` (the
trial result: ``verifier_result.rewards``, ``exception_info``), ``config.json``, ``exception.txt``
when the trial raised, and ``verifier/`` (``reward.txt``, ``ctrf.json``, test output).

* :func:`read_ctrf` reads ``verifier/ctrf.json``, the Common Test Report Format
  (``results.summary`` counts, ``results.tests[]`` with ``name``/``status``/``message``): its
  failed tests become evidence on the run (``metadata["failed_tests"]``) and, when the trial has
  no reward, its outcome (every test passed -> success, any failed -> failure; source ``ctrf``).
* :class:`HarborTrialImporter` reads the ``result.json`` of a trial **without** a trajectory
  (the agent timed out or crashed before writing one) as a run, so the trial still counts: its
  only step is its exception (``exception.txt``, else ``exception_info``), its outcome ``error``
  when it raised (else from its reward), its source ``harbor-reward``. A trial with a trajectory
  is read from the trajectory (its ``result.json`` stays a sidecar), and the job's own
  ``result.json`` (aggregate stats, no ``trial_name``) is never claimed.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from analyzer.errors import ImportFailure
from analyzer.import_messages import imsg
from analyzer.loading.jsonio import read_json_document
from analyzer.plugin_host.protocols import ImportContext
from analyzer.schema.models import Outcome, Role, Step, StepKind, Trajectory
from analyzer.schema.outcome_source import OutcomeSource

_MAX_SIDE_BYTES = 16 * 1024 * 1024
_MAX_EXCEPTION_CHARS = 20_000
_MAX_FAILED_TESTS = 50
_TRAJECTORY_NAMES = ("agent/trajectory.json", "trajectory.json")


@dataclass
class Ctrf:
    """What a trial's ``verifier/ctrf.json`` says.

    Attributes:
        tests: Number of tests that ran.
        passed: Number that passed.
        failed: Number that failed.
        failed_tests: ``{"name", "message"}`` of each failed test (at most 50), in file order.
        file: Where the report was read from (``verifier/ctrf.json``).
    """

    tests: int
    passed: int
    failed: int
    failed_tests: list[dict[str, str]] = field(default_factory=list)
    file: str = "verifier/ctrf.json"

    def outcome(self) -> Outcome:
        """Success when every test that ran passed, failure when one failed, unknown when none ran."""
        if self.failed:
            return Outcome.FAILURE
        return Outcome.SUCCESS if self.tests and self.passed else Outcome.UNKNOWN

    def raw(self) -> str:
        """The verdict as text (``outcome_raw``)."""
        return f"{self.failed} of {self.tests} tests failed ({self.file})"

    def evidence(self) -> dict[str, Any]:
        """What goes into the run's metadata."""
        return {"file": self.file, "tests": self.tests, "passed": self.passed, "failed": self.failed,
                "failed_tests": self.failed_tests}


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def read_ctrf(trial_folder: Path) -> Ctrf | None:
    """The CTRF report of a trial (``<trial>/verifier/ctrf.json``), or None when there is none or it is no CTRF."""
    path = trial_folder / "verifier" / "ctrf.json"
    try:
        if not path.is_file() or path.stat().st_size > _MAX_SIDE_BYTES:
            return None
        doc = read_json_document(path)
    except (OSError, ImportFailure):
        return None
    results = doc.get("results") if isinstance(doc, dict) else None
    if not isinstance(results, dict):
        return None
    raw_tests = results.get("tests")
    tests: list[Any] = raw_tests if isinstance(raw_tests, list) else []
    failed_tests: list[dict[str, str]] = []
    for t in tests:
        if isinstance(t, dict) and t.get("status") == "failed" and len(failed_tests) < _MAX_FAILED_TESTS:
            entry = {"name": str(t.get("name") or "?")}
            if isinstance(t.get("message"), str) and t["message"].strip():
                entry["message"] = t["message"].strip()[:500]
            failed_tests.append(entry)
    raw_summary = results.get("summary")
    summary: dict[str, Any] = raw_summary if isinstance(raw_summary, dict) else {}
    n = _count(summary.get("tests")) or len(tests)
    passed = _count(summary.get("passed")) if "passed" in summary else \
        sum(1 for t in tests if isinstance(t, dict) and t.get("status") == "passed")
    failed = _count(summary.get("failed")) if "failed" in summary else len(failed_tests)
    if not n and not tests:
        return None
    return Ctrf(tests=n, passed=passed, failed=failed, failed_tests=failed_tests)


def has_trajectory(trial_folder: Path) -> bool:
    """True when the trial folder holds an agent trajectory (then the trajectory is the run)."""
    return any((trial_folder / name).is_file() for name in _TRAJECTORY_NAMES)


def _as_dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _reward(doc: dict[str, Any]) -> float | None:
    rewards = _as_dict(_as_dict(doc.get("verifier_result")).get("rewards"))
    for key in ("reward", *sorted(rewards)):
        value = rewards.get(key)
        if isinstance(value, int | float) and not isinstance(value, bool):
            return float(value)
    return None


def _exception_text(folder: Path, exc: dict[str, Any]) -> str:
    path = folder / "exception.txt"
    try:
        if path.is_file():
            with path.open("r", encoding="utf-8", errors="replace") as fh:
                text = fh.read(_MAX_EXCEPTION_CHARS + 1)
            if text.strip():
                return text if len(text) <= _MAX_EXCEPTION_CHARS else text[:_MAX_EXCEPTION_CHARS] + "…"
    except OSError:
        pass
    tb = exc.get("exception_traceback")
    if isinstance(tb, str) and tb.strip():
        return tb[:_MAX_EXCEPTION_CHARS]
    return ": ".join(str(exc[k]) for k in ("exception_type", "exception_message") if exc.get(k))


def _task_text(folder: Path, doc: dict[str, Any]) -> str:
    if isinstance(doc.get("instruction"), str) and doc["instruction"].strip():
        return str(doc["instruction"]).strip()
    return str(doc.get("task_name") or doc.get("trial_name") or folder.name)


class HarborTrialImporter:
    """Reads the ``result.json`` of a Harbor trial that has no trajectory as a one-step run."""

    def sniff(self, head: bytes, path: Path) -> bool:
        """A trial result (``trial_name`` near the top) in a trial folder without a trajectory."""
        return path.name == "result.json" and b'"trial_name"' in head and not has_trajectory(path.parent)

    def read(self, path: Path, ctx: ImportContext) -> Iterator[Trajectory]:
        """Yield the trial's one run."""
        doc = read_json_document(path)
        if not isinstance(doc, dict) or "trial_name" not in doc:
            raise ImportFailure(imsg("harbor_not_trial"))
        folder = path.parent
        exc = _as_dict(doc.get("exception_info"))
        text = _exception_text(folder, exc)
        reward = _reward(doc)
        ctrf = read_ctrf(folder)
        if text:
            outcome, raw = Outcome.ERROR, f"exception: {exc.get('exception_type') or 'error'}"
            if reward is not None:
                raw += f"; reward={reward:g}"
        elif reward is not None:
            outcome, raw = (Outcome.SUCCESS if reward >= 1.0 else Outcome.FAILURE), f"reward={reward:g}"
        elif ctrf is not None:
            outcome, raw = ctrf.outcome(), ctrf.raw()
        else:
            outcome, raw = Outcome.UNKNOWN, None
        source = None
        if outcome != Outcome.UNKNOWN:
            source = OutcomeSource.CTRF if raw is not None and raw.endswith("(verifier/ctrf.json)") \
                else OutcomeSource.HARBOR_REWARD
        error_line = ": ".join(str(exc[k]) for k in ("exception_type", "exception_message") if exc.get(k))
        step = Step(index=0, agent="harbor", role=Role.ENVIRONMENT, kind=StepKind.OBSERVATION,
                    text=text or "The trial left no agent trajectory.", is_error=bool(text),
                    error_text=(error_line or text.strip().splitlines()[-1][:300]) if text else None,
                    timestamp=exc.get("occurred_at") if isinstance(exc.get("occurred_at"), str) else None,
                    native_step_id="exception.txt" if (folder / "exception.txt").is_file() else "result.json")
        info = _as_dict(doc.get("agent_info"))
        model_info = _as_dict(info.get("model_info"))
        meta: dict[str, Any] = {"trial": {k: doc[k] for k in ("id", "trial_name", "task_name", "source", "started_at",
                                                               "finished_at") if doc.get(k) not in (None, "")},
                                "no_trajectory": True}
        if info:
            meta["trial"]["agent_info"] = info
        if exc:
            meta["trial"]["exception"] = {k: exc[k] for k in ("exception_type", "exception_message", "occurred_at")
                                          if k in exc}
        if ctrf is not None:
            meta["failed_tests"] = ctrf.evidence()
        task_family = doc.get("source") or doc.get("task_name")
        yield Trajectory(
            native_id=str(doc.get("trial_name")), record="$", task=_task_text(folder, doc),
            model=str(model_info["name"]) if isinstance(model_info.get("name"), str) else None,
            framework=str(info["name"]) if isinstance(info.get("name"), str) else "harbor",
            outcome=outcome, outcome_raw=raw, outcome_source=None if source is None else str(source),
            score=reward, task_family=str(task_family) if isinstance(task_family, str) else None,
            task_key=str(doc["task_name"]) if isinstance(doc.get("task_name"), str) else None,
            metadata=meta, steps=[step],
        )
