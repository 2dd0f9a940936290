"""The local judge: real packaged GGUF, incremental vs naive value curve, errors in plain words."""

from __future__ import annotations

import math
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from analyzer.errors import ModelUnavailable
from analyzer.jobs import CancelFlag, Cancelled
from analyzer.judge import (
    DEFAULT_JUDGE_MODEL,
    JudgeError,
    LlamaJudge,
    ValueCurve,
    load_judge,
    locate_default_model,
    resolve_model,
)
from analyzer.judge.cache import ScoreCache
from analyzer.judge.models import check_gguf_file
from analyzer.judge.prompts import (
    CHATML,
    GEMMA,
    PLAIN,
    _from_template,
    detect_chat_format,
    render_step,
)
from analyzer.schema.models import Step, Trajectory
from analyzer.settings import set_judge_model
from analyzer.taxonomy import CATEGORY_IDS


def _traj(n_extra: int = 0, long_text: str | None = None) -> Trajectory:
    steps = [
        Step(index=0, agent="planner", kind="message",
             text="Plan: search the web for the population of Lyon in 2020, then report it."),
        Step(index=1, agent="searcher", kind="tool_call", tool_name="web_search",
             tool_args='{"query": "Lyon population 2020"}'),
        Step(index=2, agent="web", role="tool", kind="observation",
             text="Lyon, France: population 522,250 (2020 census)."),
        Step(index=3, agent="searcher", kind="message", text="The population of Lyon in 2020 was 522,250."),
        Step(index=4, agent="planner", kind="message",
             text="Let's look up the population of Paris instead, it is more interesting."),
        Step(index=5, agent="searcher", kind="tool_call", tool_name="web_search",
             tool_args='{"query": "Paris population"}'),
        Step(index=6, agent="web", role="tool", kind="observation", text="rate limit exceeded",
             is_error=True, error_text="HTTP 429"),
        Step(index=7, agent="planner", kind="message", text="Final answer: 2.1 million. TERMINATE"),
    ]
    for k in range(n_extra):
        steps.append(Step(index=len(steps), agent="searcher", kind="tool_call", tool_name="web_search",
                          tool_args=f'{{"query": "Paris population attempt {k}"}}'))
    if long_text is not None:
        steps.append(Step(index=len(steps), agent="web", role="tool", kind="observation", text=long_text))
    return Trajectory(task="What was the population of Lyon, France in 2020?", steps=steps,
                      outcome="failure").with_id()


@pytest.fixture(scope="module")
def model_env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Cache, data and model folders for the module's judges (module-scoped, so set here).

    Judge threads default to 1 here unless the environment says otherwise: answers do not
    depend on the thread count, and on a shared, busy CI core llama.cpp's spinning threads
    make two threads several times slower than one.
    """
    root = tmp_path_factory.mktemp("judge_env")
    with pytest.MonkeyPatch.context() as mp:
        if not os.environ.get("TRAJSCOPE_JUDGE_THREADS"):
            mp.setenv("TRAJSCOPE_JUDGE_THREADS", "1")
        mp.setenv("TRAJSCOPE_CACHE_DIR", str(root / "cache"))
        mp.setenv("TRAJSCOPE_DATA_DIR", str(root / "data"))
        mp.setenv("TRAJSCOPE_MODEL_DIR", str(root / "models"))
        yield root


@pytest.fixture(scope="module")
def judge(model_env: Path) -> Iterator[LlamaJudge]:
    """The REAL default judge (packaged GGUF), loaded the way the app loads it."""
    j = load_judge(None, cache=ScoreCache(model_env / "judge.sqlite"))
    yield j
    j.close()


def _assert_curve_ok(curve: ValueCurve, n: int) -> None:
    assert len(curve.values) == n
    assert all(0.0 < v < 1.0 for v in curve.values)
    assert 0.0 < curve.prior < 1.0


@pytest.mark.slow
def test_default_judge_is_the_packaged_model(judge: LlamaJudge) -> None:
    assert judge.model_id.startswith(DEFAULT_JUDGE_MODEL + "@")
    assert judge.n_ctx >= 2048
    assert judge.chat_format.name in {"gemma", "chatml"}


@pytest.mark.slow
def test_incremental_value_curve_matches_naive(judge: LlamaJudge) -> None:
    traj = _traj()
    inc = judge.value_curve(traj, use_cache=False)
    naive = judge.naive_value_curve(traj)
    _assert_curve_ok(inc, 8)
    assert abs(inc.prior - naive.prior) <= 1e-3
    for a, b in zip(inc.values, naive.values, strict=True):
        assert abs(a - b) <= 1e-3
    # KV reuse: each step is evaluated once instead of once per later prefix.
    assert inc.tokens_evaluated < naive.tokens_evaluated / 2
    assert inc.window_start == 0 and inc.window_starts == [0] * 8
    assert inc.model_id == judge.model_id


@pytest.mark.slow
def test_value_curve_is_deterministic_across_runs_and_instances(judge: LlamaJudge, model_env: Path) -> None:
    traj = _traj()
    first = judge.value_curve(traj, use_cache=False)
    judge.candidate_scores(traj, [2])  # leave something else in the KV cache
    second = judge.value_curve(traj, use_cache=False)
    assert first.values == second.values and first.prior == second.prior
    other = load_judge(DEFAULT_JUDGE_MODEL, cache=False)
    try:
        third = other.value_curve(traj)
    finally:
        other.close()
    assert third.values == first.values and third.prior == first.prior


@pytest.mark.slow
def test_value_curve_cache_and_progress(judge: LlamaJudge) -> None:
    traj = _traj(n_extra=1)
    seen: list[tuple[int, int]] = []
    computed = judge.value_curve(traj, progress=lambda d, t, m="": seen.append((d, t)))
    assert seen[-1] == (9, 9) and not computed.cached
    before = judge.tokens_evaluated
    again = judge.value_curve(traj)
    assert again.cached and again.values == computed.values
    assert judge.tokens_evaluated == before  # served from disk, no model call


@pytest.mark.slow
def test_value_curve_cancel(judge: LlamaJudge) -> None:
    flag = CancelFlag()
    flag.cancel()
    with pytest.raises(Cancelled):
        judge.value_curve(_traj(n_extra=2), cancel=flag, use_cache=False)


@pytest.mark.slow
def test_long_step_is_clipped_with_marker(judge: LlamaJudge) -> None:
    traj = _traj(long_text="row " * 3000)
    _head, steps, _question, clipped = judge._value_parts(traj)
    assert clipped == [8]
    assert len(steps[8]) <= judge.step_token_budget
    assert "[... clipped ...]" in judge._llm.detokenize(steps[8]).decode("utf-8", "replace")


@pytest.mark.slow
def test_sliding_window_keeps_task_pinned(model_env: Path) -> None:
    small = load_judge(DEFAULT_JUDGE_MODEL, n_ctx=384, cache=False, step_token_budget=64)
    try:
        traj = _traj(n_extra=10)
        inc = small.value_curve(traj)
        n = len(traj.steps)
        _assert_curve_ok(inc, n)
        assert inc.window_start > 0
        assert inc.window_starts == sorted(inc.window_starts)
        moves = [t for t in range(1, n) if inc.window_starts[t] != inc.window_starts[t - 1]]
        assert moves
        probe = sorted({moves[0] - 1, moves[0], n - 1})
        naive = small.naive_value_curve(traj, only_steps=probe)
        for t in probe:
            assert abs(inc.values[t] - naive.values[t]) <= 1e-3
        assert all(math.isnan(naive.values[t]) for t in range(n) if t not in probe)
        # The task stays in every prompt: the window requests all start with the pinned head.
        head, steps, question, _ = small._value_parts(traj)
        reqs = list(small._value_requests(head, steps, question))
        assert all(r.segments[: len(head)] == head for r in reqs)
        assert all(sum(len(s) for s in r.segments) <= small.n_ctx for r in reqs)
    finally:
        small.close()


@pytest.mark.slow
def test_candidate_scores_and_classify_are_probabilities(judge: LlamaJudge) -> None:
    traj = _traj()
    scores = judge.candidate_scores(traj, [4, 1, 7])
    assert list(scores) == [4, 1, 7]
    assert all(0.0 < p < 1.0 for p in scores.values())
    dist = judge.classify(traj, 4)
    assert set(dist) <= set(CATEGORY_IDS) and len(dist) == 9
    assert abs(sum(dist.values()) - 1.0) < 1e-6 and all(p >= 0 for p in dist.values())
    # Same input, same answer, whatever the KV cache held before (and bypassing the disk cache).
    cache, judge.cache = judge.cache, None
    try:
        judge.reset()
        assert judge.candidate_scores(traj, [7]) == {7: scores[7]}
        assert judge.classify(traj, 4) == dist
    finally:
        judge.cache = cache
    with pytest.raises(JudgeError, match="out of range"):
        judge.candidate_scores(traj, [8])
    with pytest.raises(JudgeError, match="out of range"):
        judge.classify(traj, -1)


def test_missing_model_file(tmp_path: Path) -> None:
    with pytest.raises(ModelUnavailable, match="not found"):
        load_judge(tmp_path / "nope.gguf")


def test_not_a_gguf_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"PK\x03\x04 this is a zip, not a model")
    with pytest.raises(ModelUnavailable, match="not a GGUF"):
        load_judge(bad)


def test_unknown_model_name() -> None:
    with pytest.raises(ModelUnavailable, match="not found"):
        load_judge("no-such-model")


@pytest.mark.slow
def test_truncated_gguf_file(tmp_path: Path) -> None:
    real = locate_default_model("smollm2-135m")
    cut = tmp_path / "truncated.gguf"
    with real.open("rb") as fh:
        cut.write_bytes(fh.read(1 << 20))
    check_gguf_file(cut)  # the header looks fine ...
    with pytest.raises(ModelUnavailable, match="could not load the judge model"):
        load_judge(cut)  # ... but llama.cpp cannot load it


def test_packaged_models_are_located(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRAJSCOPE_MODEL_DIR", str(tmp_path / "models"))
    for name in ("gemma3-270m", "smollm2-135m"):
        path = locate_default_model(name)
        check_gguf_file(path)
    with pytest.raises(ModelUnavailable, match="unknown packaged judge model"):
        locate_default_model("llama-70b")
    # A damaged reassembled copy is detected (sha256) and rebuilt from the part packages.
    gemma = locate_default_model("gemma")
    assert gemma.parent == tmp_path / "models"
    with gemma.open("r+b") as fh:
        fh.seek(4096)
        fh.write(b"damage")
    gemma.with_name(gemma.name + ".verified").unlink()
    assert locate_default_model("gemma3-270m") == gemma
    with gemma.open("rb") as fh:
        fh.seek(4096)
        assert fh.read(6) != b"damage"


def test_judge_choice_persists_in_settings() -> None:
    set_judge_model("smollm2-135m")
    path, model_id = resolve_model(None)
    assert path.name == "SmolLM2-135M-Instruct.Q4_1.gguf"
    assert model_id.startswith("smollm2-135m@")
    set_judge_model(None)
    assert resolve_model(None)[1].startswith(DEFAULT_JUDGE_MODEL + "@")


def test_chat_format_detection() -> None:
    assert detect_chat_format(lambda t: t == "<start_of_turn>", None) is GEMMA
    assert detect_chat_format(lambda t: t == "<|im_start|>", None) is CHATML
    assert detect_chat_format(lambda t: False, None) is PLAIN
    tpl = ("{% for m in messages %}[{{ m['role'] }}] {{ m['content'] }}\n{% endfor %}"
           "{% if add_generation_prompt %}[bot] {% endif %}")
    fmt = detect_chat_format(lambda t: False, tpl)
    assert (fmt.name, fmt.user_open, fmt.assistant_open) == ("template", "[user] ", "\n[bot] ")
    assert _from_template("{{ raise_exception('no') }}", "", "") is None


def test_render_step_shows_tool_call_and_error() -> None:
    step = Step(index=3, agent="coder", kind="tool_call", tool_name="bash", tool_args='{"cmd": "ls"}',
                is_error=True, error_text="exit 2")
    text = render_step(step)
    assert text.startswith("\n[Step 3] coder (tool_call): bash(")
    assert "[ERROR: exit 2]" in text
