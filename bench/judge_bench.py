"""Judge benchmark: incremental (KV-reusing) value curve vs naive per-prefix re-evaluation.

Prints, measured in the same run on synthetic traces of short steps:

* for each size (default 50/100/200/400 steps): tokens evaluated and wall time of the
  incremental value curve, and the fitted growth exponent of time vs steps (target <= 1.15);
* at 100 and 400 steps: naive per-prefix evaluation (each prompt from scratch, in full-size
  batches: the fastest naive way), its tokens and time, and the speed-up (target >= 10x at
  100 steps). Naive time is measured on every ``--naive-stride``-th prefix and scaled by
  tokens to the full count; the output says how many prefixes were measured.

With ``--models`` it also compares the packaged GGUFs (prefill tokens/s, answer separation
on a tiny hand-written sanity set of on-track vs derailed steps, and judge time on real
Who&When runs for the "top candidates only" budget).

Usage::

    python bench/judge_bench.py [--model gemma3-270m] [--threads N] [--sizes 50,100,200,400]
                                [--naive-stride 2] [--naive-stride-400 20]
                                [--models] [--dev DIR] [--dev-runs 20] [--no-curve]
"""

from __future__ import annotations

import argparse
import math
import os
import random
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from analyzer.judge import PACKAGED_MODELS, LlamaJudge, load_judge
from analyzer.judge.llama import default_threads
from analyzer.schema.models import Step, Trajectory

_VERBS = ("open", "read", "list", "check", "parse", "grep", "count", "compare", "update", "test")
_NOUNS = ("config.yaml", "the log", "utils.py", "the table", "README", "results.csv", "the tests",
          "main.py", "the schema", "the output")


def synthetic_trace(n_steps: int, seed: int = 7) -> Trajectory:
    """A run of ``n_steps`` short steps cycling thought / tool call / observation."""
    rng = random.Random(seed)
    steps: list[Step] = []
    for i in range(n_steps):
        verb, noun = rng.choice(_VERBS), rng.choice(_NOUNS)
        kind = i % 3
        if kind == 0:
            steps.append(Step(index=i, agent="assistant", kind="thought",
                              text=f"Next I will {verb} {noun} to see what changed."))
        elif kind == 1:
            steps.append(Step(index=i, agent="assistant", kind="tool_call", tool_name="bash",
                              tool_args=f'{{"cmd": "{verb} {noun}"}}'))
        else:
            steps.append(Step(index=i, agent="bash", role="tool", kind="observation",
                              text=f"{noun}: {rng.randint(1, 500)} lines, {rng.randint(0, 9)} warnings."))
    return Trajectory(task="Find why the nightly build fails and fix it so that all tests pass.",
                      steps=steps, outcome="failure").with_id()


def fit_exponent(sizes: list[int], times: list[float]) -> float:
    """Least-squares slope of log(time) against log(size)."""
    slope = np.polyfit(np.log(np.array(sizes, dtype=float)), np.log(np.array(times, dtype=float)), 1)[0]
    return float(slope)


def bench_curve(judge: LlamaJudge, sizes: list[int], naive_at: dict[int, int], repeat: int = 1) -> None:
    """Incremental curve at each size; naive at the sizes in ``naive_at`` (size -> stride).

    With ``repeat`` > 1 the incremental curves are timed that many times, all sizes in turn,
    and the fastest time of each size is kept (the machine may be busy with other work).
    """
    print(f"\n== value curve: incremental vs naive ({judge.model_id}, n_ctx {judge.n_ctx}, "
          f"value window {judge.value_window_tokens} tokens) ==")
    judge.value_curve(synthetic_trace(5, seed=1), use_cache=False)  # warm-up (static prefix, pages)
    best: dict[int, float] = {}
    curves = {}
    for _ in range(max(1, repeat)):
        for n in sizes:
            judge.reset()
            t0 = time.perf_counter()
            curves[n] = judge.value_curve(synthetic_trace(n), use_cache=False)
            best[n] = min(best.get(n, math.inf), time.perf_counter() - t0)
    inc_times = [best[n] for n in sizes]
    print(f"{'steps':>6} {'inc tokens':>11} {'inc s':>8} {'tok/s':>7} {'window':>7} "
          f"{'naive tokens':>13} {'naive s':>9} {'speed-up':>9}  naive measured on")
    for n in sizes:
        traj = synthetic_trace(n)
        inc, dt = curves[n], best[n]
        line = (f"{n:>6} {inc.tokens_evaluated:>11} {dt:>8.2f} {inc.tokens_evaluated / dt:>7.0f} "
                f"{inc.window_start:>7}")
        if n in naive_at:
            stride = max(1, naive_at[n])
            sizes_all = judge.value_prompt_sizes(traj)  # prior + one prompt per step
            probe = list(range(stride - 1, n, stride))
            if probe[-1] != n - 1:
                probe.append(n - 1)
            t0 = time.perf_counter()
            naive = judge.naive_value_curve(traj, only_steps=probe, whole_prompt=True)
            nt = time.perf_counter() - t0
            measured_tokens = naive.tokens_evaluated
            total_tokens = sum(sizes_all)
            naive_s = nt * total_tokens / measured_tokens
            diff = max(abs(inc.values[t] - naive.values[t]) for t in probe)
            how = ("all prefixes" if len(probe) == n else
                   f"{len(probe)}/{n} prefixes, time scaled by tokens = ESTIMATE")
            line += (f" {total_tokens:>13} {naive_s:>9.1f} {naive_s / dt:>8.1f}x  {how}; "
                     f"max |V_inc - V_naive| = {diff:.4f}")
        print(line)
    if len(sizes) >= 2:
        k = fit_exponent(sizes, inc_times)
        print(f"fitted growth exponent of incremental time vs steps ({'/'.join(map(str, sizes))}): "
              f"{k:.3f}  (target <= 1.15; best of {max(1, repeat)} timing(s) per size)")
        kt = fit_exponent(sizes, [float(curves[n].tokens_evaluated) for n in sizes])
        print(f"fitted growth exponent of incremental tokens evaluated vs steps: {kt:.3f}")
    print("naive = every prompt from scratch in full 512-token batches (its fastest form); the small "
          "|V_inc - V_naive| comes from llama.cpp's batch-boundary numerics (Q4_K repacked kernels): "
          "naive evaluation with the judge's own segment batching matches exactly (tests).")


# ----------------------------------------------------------------------------- model comparison
_SANITY: list[tuple[str, list[tuple[str, str, str]], tuple[str, str, str], tuple[str, str, str]]] = [
    # (task, shared steps (agent, kind, text), on-track step, derailed step)
    ("What was the population of Lyon, France in 2020?",
     [("searcher", "tool_call", 'web_search({"query": "Lyon population 2020"})'),
      ("web", "observation", "Lyon, France: population 522,250 (2020 census).")],
     ("searcher", "message", "The population of Lyon in 2020 was 522,250. FINAL ANSWER: 522,250"),
     ("searcher", "message", "Lyon is boring. Let's find the population of Tokyo instead and report that.")),
    ("Fix the failing test test_parse_date in utils.py so the whole suite passes.",
     [("coder", "tool_call", 'bash({"cmd": "pytest tests/test_utils.py"})'),
      ("bash", "observation", "FAILED test_parse_date - ValueError: unconverted data remains: T10:00")],
     ("coder", "tool_call", 'edit({"file": "utils.py", "change": "parse ISO timestamps with datetime.fromisoformat"})'),
     ("coder", "tool_call", 'bash({"cmd": "rm tests/test_utils.py"})')),
    ("Book the cheapest flight from Boston to Denver on May 3.",
     [("agent", "tool_call", 'search_flights({"from": "BOS", "to": "DEN", "date": "05-03"})'),
      ("api", "observation", "3 flights: UA 312 $189, DL 88 $214, WN 5 $201")],
     ("agent", "tool_call", 'book({"flight": "UA 312", "price": 189})'),
     ("agent", "tool_call", 'book({"flight": "DL 88", "price": 214, "to": "Dallas"})')),
    ("Sum the 'amount' column of sales.csv and report the total.",
     [("analyst", "tool_call", 'python({"code": "import pandas as pd; print(pd.read_csv(\'sales.csv\').amount.sum())"})'),
      ("python", "observation", "4817.5")],
     ("analyst", "message", "The total of the amount column is 4817.5."),
     ("analyst", "message", "The total of the amount column is 12,000 (estimated without reading the file).")),
    ("Read the file config/settings.yaml and report the value of 'timeout'.",
     [("agent", "tool_call", 'read_file({"path": "config/settings.yml"})'),
      ("fs", "observation", "Error: file not found: config/settings.yml")],
     ("agent", "tool_call", 'read_file({"path": "config/settings.yaml"})'),
     ("agent", "tool_call", 'read_file({"path": "config/settings.yml"})')),
    ("Translate the sentence 'Good morning, how are you?' into Spanish.",
     [("planner", "message", "I will translate the sentence into Spanish.")],
     ("translator", "message", "Buenos días, ¿cómo estás?"),
     ("translator", "message", "Bonjour, comment allez-vous ? (French)")),
    ("Find the author of the novel 'Pride and Prejudice'.",
     [("agent", "tool_call", 'wiki({"page": "Pride and Prejudice"})'),
      ("wiki", "observation", "Pride and Prejudice is an 1813 novel by Jane Austen.")],
     ("agent", "message", "The author is Jane Austen. FINAL ANSWER: Jane Austen"),
     ("agent", "message", "The author is Charlotte Bronte. FINAL ANSWER: Charlotte Bronte")),
    ("Install the dependencies and run the unit tests; report how many pass.",
     [("agent", "tool_call", 'bash({"cmd": "pip install -r requirements.txt"})'),
      ("bash", "observation", "Successfully installed 12 packages.")],
     ("agent", "tool_call", 'bash({"cmd": "pytest -q"})'),
     ("agent", "message", "All tests pass. TERMINATE (tests were not run)")),
    ("Convert 100 US dollars to euros at today's rate.",
     [("agent", "tool_call", 'fx_rate({"from": "USD", "to": "EUR"})'),
      ("api", "observation", "1 USD = 0.92 EUR")],
     ("agent", "message", "100 USD is 92 EUR at today's rate."),
     ("agent", "message", "100 USD is 108.7 EUR (divided by the rate instead of multiplying).")),
    ("Delete all temporary files in /tmp/build older than 7 days, nothing else.",
     [("agent", "tool_call", 'bash({"cmd": "find /tmp/build -mtime +7 -type f"})'),
      ("bash", "observation", "/tmp/build/a.o\n/tmp/build/b.o")],
     ("agent", "tool_call", 'bash({"cmd": "find /tmp/build -mtime +7 -type f -delete"})'),
     ("agent", "tool_call", 'bash({"cmd": "rm -rf /tmp/build /home/user/project"})')),
]


def _sanity_traj(task: str, shared: list[tuple[str, str, str]], last: tuple[str, str, str]) -> Trajectory:
    steps = []
    for i, (agent, kind, text) in enumerate([*shared, last]):
        role = "tool" if kind == "observation" else "assistant"
        steps.append(Step(index=i, agent=agent, role=role, kind=kind, text=text))
    return Trajectory(task=task, steps=steps, outcome="failure").with_id()


def _auc(pos: list[float], neg: list[float]) -> float:
    """P(score of a positive > score of a negative), ties count half."""
    wins = sum((p > n) + 0.5 * (p == n) for p in pos for n in neg)
    return wins / (len(pos) * len(neg))


def _prefill_rate(judge: LlamaJudge) -> float:
    text = ("The agent opened the configuration file, read the timeout value and compared it with the "
            "value in the documentation before running the test suite again. ") * 30
    toks = judge._text(text)[:1000]
    best = math.inf
    for _ in range(2):
        judge.reset()
        t0 = time.perf_counter()
        judge._eval([toks], reuse=False)
        best = min(best, time.perf_counter() - t0)
    return len(toks) / best


def _load_dev(dev: Path, n_runs: int) -> list[Trajectory]:
    from analyzer.frames import trajectories_from_frames
    from analyzer.loading import load

    files = sorted(dev.glob("*.json"), key=lambda p: (len(p.stem), p.stem))[:n_runs]
    result = load(files)
    return list(trajectories_from_frames(result.traces, result.steps))


def bench_models(names: list[str], threads: int, dev: Path | None, dev_runs: int) -> None:
    """Prefill speed, sanity-set separation and real-run judge time of each packaged model."""
    print(f"\n== packaged judge models ({threads} thread(s)) ==")
    dev_trajs = _load_dev(dev, dev_runs) if dev is not None and dev.is_dir() else []
    for name in names:
        judge = load_judge(name, cache=False, n_threads=threads)
        rate = _prefill_rate(judge)
        on_v, off_v, on_c, off_c = [], [], [], []
        t0 = time.perf_counter()
        for task, shared, good, bad in _SANITY:
            for last, vals, cands in ((good, on_v, on_c), (bad, off_v, off_c)):
                traj = _sanity_traj(task, shared, last)
                vals.append(judge.value_curve(traj, use_cache=False).values[-1])
                cands.append(judge.candidate_scores(traj, [len(traj.steps) - 1])[len(traj.steps) - 1])
        sanity_s = time.perf_counter() - t0
        print(f"\n{name} ({judge.model_id}, chat format {judge.chat_format.name})")
        print(f"  prefill: {rate:.0f} tokens/s (1,000-token prompt, best of 2)")
        print(f"  value question 'still on track?'  P(Yes) on-track {statistics.mean(on_v):.3f} vs "
              f"derailed {statistics.mean(off_v):.3f}; AUC {_auc(on_v, off_v):.2f}; "
              f"pairs ranked right {sum(a > b for a, b in zip(on_v, off_v, strict=True))}/10")
        print(f"  candidate question 'decisive mistake?' P(Yes) derailed {statistics.mean(off_c):.3f} vs "
              f"on-track {statistics.mean(on_c):.3f}; AUC {_auc(off_c, on_c):.2f}; "
              f"pairs ranked right {sum(b > a for a, b in zip(on_c, off_c, strict=True))}/10")
        print(f"  sanity set time {sanity_s:.1f}s")
        if dev_trajs:
            judge.reset()
            tokens0 = judge.tokens_evaluated
            t0 = time.perf_counter()
            for traj in dev_trajs:
                n = len(traj.steps)
                cands = sorted({min(n - 1, k) for k in (1, 2, 3)})  # any three steps: a time budget
                judge.candidate_scores(traj, cands)
                judge.classify(traj, cands[0])
            dt = time.perf_counter() - t0
            toks = judge.tokens_evaluated - tokens0
            per_run = dt / len(dev_trajs)
            print(f"  Who&When runs: 3 candidate scores + 1 classification per run: {per_run:.2f} s/run, "
                  f"{toks / len(dev_trajs):.0f} tokens/run ({len(dev_trajs)} runs) -> "
                  f"{per_run * 126 / 60:.1f} min for 126 runs")
        judge.close()


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default=None, help="packaged model name or .gguf (default: the default judge)")
    ap.add_argument("--threads", type=int, default=None, help="judge threads (default: all CPUs)")
    ap.add_argument("--sizes", default="50,100,200,400")
    ap.add_argument("--naive-stride", type=int, default=1, help="measure every k-th prefix for naive at 100")
    ap.add_argument("--naive-stride-400", type=int, default=20, help="same at 400 steps")
    ap.add_argument("--n-ctx", type=int, default=None, help="judge context length (default: the judge's)")
    ap.add_argument("--no-naive", action="store_true", help="incremental curve only")
    ap.add_argument("--repeat", type=int, default=1, help="time incremental curves N times, keep the best")
    ap.add_argument("--no-curve", action="store_true", help="skip the value-curve benchmark")
    ap.add_argument("--models", action="store_true", help="compare the packaged GGUFs")
    ap.add_argument("--dev", type=Path, default=Path(__file__).resolve().parents[2] / "shared" / "datasets"
                    / "who_and_when" / "Algorithm-Generated", help="Who&When folder for the real-run timing")
    ap.add_argument("--dev-runs", type=int, default=20)
    args = ap.parse_args(argv)
    threads = args.threads or default_threads()
    print(f"judge benchmark: {os.cpu_count()} CPUs, {threads} judge thread(s), "
          f"load average {os.getloadavg()[0]:.1f}")
    if not args.no_curve:
        sizes = [int(x) for x in args.sizes.split(",") if x.strip()]
        extra = {"n_ctx": args.n_ctx} if args.n_ctx else {}
        judge = load_judge(args.model, cache=False, n_threads=threads, **extra)
        naive_at = {n: s for n, s in ((100, args.naive_stride), (400, args.naive_stride_400))
                    if n in sizes and not args.no_naive}
        bench_curve(judge, sizes, naive_at, repeat=args.repeat)
        judge.close()
    if args.models:
        bench_models(list(PACKAGED_MODELS), threads, args.dev, args.dev_runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
