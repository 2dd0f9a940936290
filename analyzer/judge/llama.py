"""The llama-cpp-python judge: answers read as probabilities from next-token logits.

Every question is one prompt whose next token is the answer. Instead of sampling, the judge
reads the logits of the answer tokens (``Yes``/``No`` variants, or the digits of the category
list) and normalises over them, so answers are deterministic probabilities.

KV-cache reuse. A prompt is a list of segments (instructions, task, one per step, question).
The judge remembers which segments its KV cache holds; a new prompt that starts with some of
them only evaluates the rest: the cache is rolled back to the end of the shared segments
(``llama_memory_seq_rm`` past that position, ``n_tokens`` reset) and the new segments are
appended, each in its own decode batch. The value curve asks, after step t, the prompt of
step t-1 minus its question plus step t plus the question, so a run costs one pass over its
steps plus one short question per step: linear in its length (bounded context per prompt:
past :data:`VALUE_WINDOW_TOKENS` the step window slides with the task pinned). Static
instructions come first, so they are evaluated once per judge, not once per run.

Determinism. With repacked quantised weights (Q4_K on x86), llama.cpp's logits depend a
little on how tokens are split into decode batches (up to ~0.05 in P(Yes) here). Decoding each
segment in its own batch makes the cache contents a function of the segments alone, so a
prompt scores the same whatever was evaluated before, incremental and from-scratch evaluation
agree exactly, and answers do not depend on the thread count either.
"""

from __future__ import annotations

import math
import os
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from analyzer.errors import ModelUnavailable
from analyzer.jobs import Cancelled, CancelToken, Progress
from analyzer.judge import prompts
from analyzer.judge.base import AchievedJudge, Judge, JudgeError, ValueCurve
from analyzer.judge.cache import ScoreCache, content_key, token_lists_key
from analyzer.judge.models import (
    DEFAULT_JUDGE_MODEL,
    PACKAGED_MODELS,
    check_gguf_file,
    locate_default_model,
    model_fingerprint,
    packaged_model_name,
)
from analyzer.schema.models import Trajectory
from analyzer.settings import load_settings
from analyzer.taxonomy import CATEGORIES

DEFAULT_N_CTX = 8192
"""Context length asked for (capped at the model's training context)."""
DEFAULT_SEED = 1234
STEP_TOKEN_BUDGET = 256
"""Tokens a step may take in the value curve (and the judged step in focused contexts)."""
FOCUS_STEP_BUDGET = 192
"""Tokens the judged step may take in a focused context (candidate scores, classification)."""
CONTEXT_STEP_BUDGET = 64
"""Tokens a neighbouring step may take in a focused context."""
CONTEXT_BEFORE = 1
"""Steps shown before the judged step in a focused context."""
CONTEXT_AFTER = 1
"""Steps shown after the judged step in a focused context."""
TASK_TOKEN_BUDGET = 512
"""Tokens the task statement may take."""
VALUE_WINDOW_TOKENS = 3072
"""Longest value-curve prompt: beyond it the step window slides (task pinned). Attention cost
per token grows with the context on CPU (Gemma-3-270M, one thread: +37% at 4k tokens with flash
attention, +90% without), so a bounded window keeps the curve's cost linear in the run length."""
WINDOW_KEEP_FRACTION = 0.25
"""When the window must move, the most recent steps filling this share of the room are kept
(re-evaluated after the pinned task). Smaller: cheaper moves (amortised extra cost
keep/(1-keep) of the step tokens), less context right after a move."""
ACHIEVED_TOKEN_BUDGET = 384
"""Longest "does the final state achieve the task?" prompt. A cost budget, not a tuned figure: Gemma 3
270M evaluated about 75 prompt tokens/s on one thread of the busy 2-core development machine
(256 tokens 3.4 s, 512 tokens 7.0 s, 1024 tokens 14.2 s), so one question costs about 5 s there;
``trajscope outcome-fit --judge`` reports the seconds per run it measured."""
ACHIEVED_TASK_BUDGET = 128
"""Tokens the task statement may take in that prompt (head and tail kept)."""
ACHIEVED_STEP_BUDGET = 96
"""Tokens each of the last steps may take in that prompt."""
ACHIEVED_ANSWER_BUDGET = 64
"""Tokens the run's final answer may take in that prompt."""
_MARKER_RESERVE = 32
_SAFETY = 8


def default_threads() -> int:
    """Threads for the judge: ``$TRAJSCOPE_JUDGE_THREADS`` if set, else every usable CPU.

    Results do not depend on the thread count (checked by tests), only speed does. On a
    machine busy with other work, fewer threads can be much faster: llama.cpp's threads
    spin while waiting for each other, which collapses when they do not all get a core.
    """
    env = os.environ.get("TRAJSCOPE_JUDGE_THREADS", "").strip()
    if env.isdigit() and int(env) > 0:
        return int(env)
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def _lse(values: np.ndarray) -> float:
    m = float(values.max())
    return m + math.log(float(np.exp(values - m).sum()))


@dataclass
class _ValueRequest:
    """One prompt of the value curve: step ``t`` (-1 = prior), its segments and window start."""

    t: int
    segments: list[list[int]]
    window_start: int


class LlamaJudge:
    """A judge backed by one llama.cpp context (create it with :func:`load_judge`).

    All methods are thread-safe (one call at a time) and deterministic: no sampling happens,
    answers are read from logits.

    Args:
        llm: A ``llama_cpp.Llama`` created with ``logits_all=False``.
        model_path: Path of the GGUF file.
        model_id: Stable id of the model (name + content fingerprint).
        cache: Answer cache, or None for no caching.
        step_token_budget: Tokens per step in the value curve.
        focus_step_budget: Tokens for the judged step in focused contexts.
        context_step_budget: Tokens per neighbouring step in focused contexts.
        task_token_budget: Tokens for the task statement.
        context_before: Steps shown before the judged step in focused contexts.
        context_after: Steps shown after the judged step in focused contexts.
        value_window_tokens: Longest value-curve prompt (capped at the context length).
    """

    def __init__(self, llm: Any, *, model_path: Path, model_id: str, cache: ScoreCache | None = None,
                 step_token_budget: int = STEP_TOKEN_BUDGET,
                 focus_step_budget: int = FOCUS_STEP_BUDGET,
                 context_step_budget: int = CONTEXT_STEP_BUDGET,
                 task_token_budget: int = TASK_TOKEN_BUDGET,
                 context_before: int = CONTEXT_BEFORE, context_after: int = CONTEXT_AFTER,
                 value_window_tokens: int = VALUE_WINDOW_TOKENS) -> None:
        self._llm = llm
        self.model_path = model_path
        self.model_id = model_id
        self.cache = cache
        # llama.cpp may round the context up; the Python-side token buffer has the asked size.
        self.n_ctx: int = min(int(llm.n_ctx()), len(llm.input_ids))
        quarter = max(16, self.n_ctx // 4)
        self.step_token_budget = min(step_token_budget, quarter)
        self.focus_step_budget = min(focus_step_budget, quarter)
        self.context_step_budget = min(context_step_budget, quarter)
        self.task_token_budget = min(task_token_budget, quarter)
        self.context_before = max(0, context_before)
        self.context_after = max(0, context_after)
        self.value_window_tokens = max(64, min(value_window_tokens, self.n_ctx))
        self.tokens_evaluated = 0
        """Tokens evaluated by the model since creation (all calls)."""
        self._lock = threading.RLock()
        self._segments: list[list[int]] = []
        model = llm._model
        self._bos: list[int] = [int(llm.token_bos())] if model.add_bos_token() and llm.token_bos() >= 0 else []
        bos_text = model.token_get_text(llm.token_bos()) if llm.token_bos() >= 0 else ""
        eos_text = model.token_get_text(llm.token_eos()) if llm.token_eos() >= 0 else ""
        template = llm.metadata.get("tokenizer.chat_template")
        self.chat_format = prompts.detect_chat_format(self._is_special_token, template, bos_text, eos_text)
        self._yes_ids, self._no_ids = self._answer_ids(["Yes", " Yes", "yes", " yes", "YES"],
                                                       ["No", " No", "no", " no", "NO"])
        self._digit_ids = self._digit_answer_ids()
        self._prompt_key = content_key(model_id, prompts.PROMPT_VERSION, self.value_window_tokens,
                                       str(WINDOW_KEEP_FRACTION), self.chat_format.name)

    # ----------------------------------------------------------------- tokens
    def _is_special_token(self, text: str) -> bool:
        toks = self._llm.tokenize(text.encode("utf-8"), add_bos=False, special=True)
        return len(toks) == 1

    def _text(self, text: str) -> list[int]:
        """Tokens of trace/prompt text (special-token syntax in it stays plain text)."""
        if not text:
            return []
        return [int(t) for t in self._llm.tokenize(text.encode("utf-8", "replace"), add_bos=False,
                                                   special=False)]

    def _special(self, text: str) -> list[int]:
        """Tokens of chat-template text (turn markers become their special tokens)."""
        if not text:
            return []
        return [int(t) for t in self._llm.tokenize(text.encode("utf-8"), add_bos=False, special=True)]

    def _first_tokens(self, variants: Sequence[str]) -> set[int]:
        out: set[int] = set()
        for v in variants:
            toks = self._text(v)
            if toks:
                out.add(toks[0])
        return out

    def _answer_ids(self, yes: Sequence[str], no: Sequence[str]) -> tuple[list[int], list[int]]:
        y, n = self._first_tokens(yes), self._first_tokens(no)
        shared = y & n
        y, n = y - shared, n - shared
        if not y or not n:
            raise ModelUnavailable(f"the judge model {self.model_path.name} has no distinct Yes/No tokens")
        return sorted(y), sorted(n)

    def _digit_answer_ids(self) -> list[list[int]]:
        firsts = [self._first_tokens([d, " " + d]) for d in "123456789"]
        counts: dict[int, int] = {}
        for ids in firsts:
            for i in ids:
                counts[i] = counts.get(i, 0) + 1
        out = [sorted(i for i in ids if counts[i] == 1) for ids in firsts]
        if any(not ids for ids in out):
            raise ModelUnavailable(f"the judge model {self.model_path.name} has no distinct digit tokens")
        return out

    def _clip(self, tokens: list[int], budget: int) -> tuple[list[int], bool]:
        """Clip to ``budget`` tokens keeping the head and the tail around a visible marker."""
        if len(tokens) <= budget:
            return tokens, False
        marker = self._text(prompts.CLIP_MARKER)
        room = max(2, budget - len(marker))
        head = (room * 2) // 3
        tail = room - head
        return tokens[:head] + marker + tokens[len(tokens) - tail:], True

    # ------------------------------------------------------------- evaluation
    def _truncate(self, keep: int) -> int:
        """Roll the KV cache back to its first ``keep`` tokens; returns what was kept."""
        llm = self._llm
        if keep >= llm.n_tokens:
            return int(llm.n_tokens)
        if keep > 0 and not llm._ctx.kv_cache_seq_rm(-1, keep, -1):
            keep = 0  # this memory type cannot drop a suffix: start over
        if keep == 0:
            llm._ctx.kv_cache_clear()
        llm.n_tokens = keep
        return keep

    def _decode(self, tokens: list[int], *, output: bool) -> None:
        """Append ``tokens`` to the KV cache; compute logits of the last one only if ``output``."""
        llm = self._llm
        n_batch = int(llm.n_batch)
        for i in range(0, len(tokens), n_batch):
            chunk = tokens[i:i + n_batch]
            n_past = int(llm.n_tokens)
            llm._batch.set_batch(batch=chunk, n_past=n_past, logits_all=False)
            if not (output and i + n_batch >= len(tokens)):
                llm._batch.batch.logits[len(chunk) - 1] = False  # no output layer for this chunk
            llm._ctx.decode(llm._batch)
            llm.input_ids[n_past:n_past + len(chunk)] = chunk
            llm.n_tokens = n_past + len(chunk)
        self.tokens_evaluated += len(tokens)

    def _eval(self, segments: Sequence[list[int]], *, reuse: bool = True) -> np.ndarray:
        """Make the KV cache hold exactly ``segments`` and return the next-token logits.

        A prompt is a list of segments (instructions, task, one per step, question). Each
        segment is decoded in its own batch, so the cache contents after a segment depend
        only on the segments up to it, never on what was evaluated before. That matters:
        with repacked quantised weights, llama.cpp's numbers depend slightly on how tokens
        are split into batches, and without fixed boundaries the same prompt could score
        differently depending on the cache history.

        Args:
            segments: The prompt, segment by segment (empty segments are ignored).
            reuse: Keep the longest run of leading segments shared with what the cache holds
                (False: evaluate everything from scratch, the naive baseline).

        Returns:
            Logits of the token after the prompt (a view; copy what you keep).
        """
        segs = [list(s) for s in segments if s]
        total = sum(len(s) for s in segs)
        if not segs:
            raise JudgeError("empty prompt")
        if total > self.n_ctx:
            raise JudgeError(f"prompt of {total} tokens does not fit the context of {self.n_ctx}")
        keep = 0
        if reuse:
            limit = min(len(segs) - 1, len(self._segments))  # the last segment is always evaluated
            while keep < limit and self._segments[keep] == segs[keep]:
                keep += 1
        keep_tokens = sum(len(s) for s in segs[:keep])
        if self._truncate(keep_tokens) != keep_tokens:
            keep = 0
        del self._segments[keep:]
        try:
            for i in range(keep, len(segs)):
                self._decode(segs[i], output=i == len(segs) - 1)
                self._segments.append(segs[i])
        except Exception as exc:
            self._truncate(0)
            self._segments.clear()
            raise JudgeError(f"the judge model failed to evaluate a prompt: {exc}") from exc
        ptr = self._llm._ctx.get_logits_ith(-1)
        return np.ctypeslib.as_array(ptr, shape=(int(self._llm.n_vocab()),))

    def _p_yes(self, logits: np.ndarray) -> float:
        ly = _lse(logits[self._yes_ids].astype(np.float64))
        ln = _lse(logits[self._no_ids].astype(np.float64))
        return 1.0 / (1.0 + math.exp(ln - ly))

    def _digits(self, logits: np.ndarray) -> list[float]:
        scores = np.array([_lse(logits[ids].astype(np.float64)) for ids in self._digit_ids])
        scores = np.exp(scores - scores.max())
        return [float(x) for x in scores / scores.sum()]

    # ------------------------------------------------------------ value curve
    def _value_parts(self, traj: Trajectory) -> tuple[list[list[int]], list[list[int]], list[int], list[int]]:
        """(head segments, step segments, question segment, clipped step positions)."""
        fmt = self.chat_format
        static = self._bos + self._special(fmt.user_open) + self._text(prompts.VALUE_INTRO)
        task, _ = self._clip(self._text(prompts.task_section(traj, failed_known=False)), self.task_token_budget)
        head = [static, task + self._text(prompts.STEPS_HEADER)]
        steps: list[list[int]] = []
        clipped: list[int] = []
        for pos, step in enumerate(traj.steps):
            toks, was = self._clip(self._text(prompts.render_step(step)), self.step_token_budget)
            steps.append(toks)
            if was:
                clipped.append(pos)
        question = self._text(prompts.VALUE_QUESTION) + self._special(fmt.assistant_open)
        return head, steps, question, clipped

    def _value_requests(self, head: list[list[int]], steps: list[list[int]],
                        question: list[int]) -> Iterator[_ValueRequest]:
        """The prompts of the value curve, in order: prior, then after each step.

        The task stays pinned in ``head``. When the steps no longer fit, the window start
        moves forward so that the most recent steps fill :data:`WINDOW_KEEP_FRACTION` of the
        room (the window is then re-evaluated after the pinned head), and a marker says which
        steps were omitted.
        """
        window = self.value_window_tokens
        room = window - sum(len(h) for h in head) - len(question) - _MARKER_RESERVE - _SAFETY
        if room < self.step_token_budget:
            raise JudgeError(f"the value-curve window of {window} tokens is too small for this task prompt")
        yield _ValueRequest(-1, [*head, question], 0)
        start = 0
        used = 0
        marker: list[list[int]] = []
        for t, toks in enumerate(steps):
            used += len(toks)
            if used > room:
                keep = int(room * WINDOW_KEEP_FRACTION)
                start, used = t, len(toks)
                while start > 0 and used + len(steps[start - 1]) <= keep:
                    start -= 1
                    used += len(steps[start])
                marker = [self._text(prompts.omitted_marker(start))] if start > 0 else []
            yield _ValueRequest(t, [*head, *marker, *steps[start:t + 1], question], start)

    def _curve(self, traj: Trajectory, *, reuse: bool, only_steps: set[int] | None,
               progress: Progress | None, cancel: CancelToken | None,
               whole_prompt: bool = False) -> ValueCurve:
        head, steps, question, clipped = self._value_parts(traj)
        n = len(steps)
        values = [math.nan] * n
        starts = [0] * n
        prior = math.nan
        before = self.tokens_evaluated
        for req in self._value_requests(head, steps, question):
            if req.t >= 0 and only_steps is not None and req.t not in only_steps:
                continue
            if cancel is not None and cancel.cancelled:
                raise Cancelled("judge value curve cancelled")
            segments = [[t for seg in req.segments for t in seg]] if whole_prompt else req.segments
            p = self._p_yes(self._eval(segments, reuse=reuse))
            if req.t < 0:
                prior = p
            else:
                values[req.t] = p
                starts[req.t] = req.window_start
                if progress is not None:
                    progress(req.t + 1, n, "judge value curve")
        return ValueCurve(values=values, prior=prior, clipped_steps=clipped,
                          window_start=starts[-1] if starts else 0,
                          tokens_evaluated=self.tokens_evaluated - before, model_id=self.model_id,
                          window_starts=starts, prompt_version=prompts.PROMPT_VERSION)

    def value_curve(self, trajectory: Trajectory, progress: Progress | None = None,
                    cancel: CancelToken | None = None, *, use_cache: bool = True) -> ValueCurve:
        """Value curve V(t) = P(run still on track after step t), computed incrementally.

        The shared prefix (instructions + task) is evaluated once; each step is appended to
        the KV cache, the question is appended and its answer read, then the cache is rolled
        back to the end of the step. Cost is linear in the run length. Results are cached on
        disk by (model, prompt version, content).

        Args:
            trajectory: The run.
            progress: Receives (steps done, steps total) after each step.
            cancel: Checked before each step; when fired, raises :class:`Cancelled`.
            use_cache: Read and write the on-disk cache.

        Returns:
            The value curve.

        Raises:
            JudgeError: The model failed.
            Cancelled: ``cancel`` fired.
        """
        with self._lock:
            key = None
            if use_cache and self.cache is not None:
                head, steps, question, _ = self._value_parts(trajectory)
                key = content_key(self._prompt_key, "value", token_lists_key([*head, question, *steps]))
                hit = self.cache.get(key)
                if isinstance(hit, dict):
                    try:
                        curve = ValueCurve.from_dict(hit)
                        curve.cached = True
                        if progress is not None:
                            progress(len(curve.values), len(curve.values), "judge value curve (cached)")
                        return curve
                    except TypeError:
                        pass
            curve = self._curve(trajectory, reuse=True, only_steps=None, progress=progress, cancel=cancel)
            if key is not None and self.cache is not None:
                self.cache.put(key, curve.to_dict())
            return curve

    def naive_value_curve(self, trajectory: Trajectory, only_steps: Sequence[int] | None = None, *,
                          whole_prompt: bool = False) -> ValueCurve:
        """The same curve with every prompt evaluated from scratch (no KV reuse, no cache).

        The baseline for tests and benchmarks: quadratic cost. By default each prompt is
        decoded segment by segment like :meth:`value_curve` does, so both give identical
        numbers; ``whole_prompt=True`` decodes each prompt in full-size batches instead (the
        fastest naive evaluation, whose numbers differ slightly because llama.cpp's results
        depend on batch boundaries).

        Args:
            trajectory: The run.
            only_steps: Evaluate only these steps (others are NaN); the prior is always evaluated.
            whole_prompt: Decode each prompt as one sequence of full batches.

        Returns:
            The value curve.
        """
        with self._lock:
            wanted = None if only_steps is None else set(only_steps)
            return self._curve(trajectory, reuse=False, only_steps=wanted, progress=None, cancel=None,
                               whole_prompt=whole_prompt)

    def value_prompt_sizes(self, trajectory: Trajectory) -> list[int]:
        """Token count of each value-curve prompt (prior first): what naive evaluation costs."""
        with self._lock:
            head, steps, question, _ = self._value_parts(trajectory)
            return [sum(len(s) for s in r.segments) for r in self._value_requests(head, steps, question)]

    # ------------------------------------------------------- final-state question
    def _achieved_segments(self, traj: Trajectory) -> list[list[int]]:
        """The prompt of :meth:`p_achieved`: instructions, task, the last steps, answer, question.

        The last steps are added newest first, each clipped to :data:`ACHIEVED_STEP_BUDGET`
        tokens, while the whole prompt stays within :data:`ACHIEVED_TOKEN_BUDGET`; the newest
        step is always shown (clipped to the room left).
        """
        fmt = self.chat_format
        static = self._bos + self._special(fmt.user_open) + self._text(prompts.ACHIEVED_INTRO)
        task, _ = self._clip(self._text(prompts.task_section(traj, failed_known=False)), ACHIEVED_TASK_BUDGET)
        answer_text = (traj.final_answer or "").strip()
        answer: list[int] = []
        if answer_text:
            answer, _ = self._clip(self._text(prompts.ACHIEVED_ANSWER.format(answer=answer_text)),
                                   ACHIEVED_ANSWER_BUDGET)
        question = self._text(prompts.ACHIEVED_QUESTION) + self._special(fmt.assistant_open)
        n = len(traj.steps)
        if n == 0:
            return [static, task, self._text(prompts.ACHIEVED_NO_STEPS) + answer, question]
        header_room = len(self._text(prompts.ACHIEVED_TAIL_HEADER.format(first=n, last=n, total=n)))
        room = ACHIEVED_TOKEN_BUDGET - len(static) - len(task) - len(answer) - len(question) - header_room
        shown: list[list[int]] = []
        for pos in range(n - 1, -1, -1):
            budget = min(ACHIEVED_STEP_BUDGET, room)
            if budget < 16 and shown:
                break
            toks, _ = self._clip(self._text(prompts.render_step(traj.steps[pos])), max(16, budget))
            shown.insert(0, toks)
            room -= len(toks)
        first = n - len(shown)
        header = self._text(prompts.ACHIEVED_TAIL_HEADER.format(first=first, last=n - 1, total=n))
        return [static, task, header + [t for toks in shown for t in toks] + answer, question]

    def achieved_prompt_size(self, trajectory: Trajectory) -> int:
        """Tokens of the :meth:`p_achieved` prompt of a run (what one question costs)."""
        with self._lock:
            return sum(len(s) for s in self._achieved_segments(trajectory))

    def p_achieved(self, trajectory: Trajectory) -> float:
        """P(Yes) to "does the final state of the run achieve the task?".

        One narrow question (prompt :data:`analyzer.judge.prompts.ACHIEVED_PROMPT_ID`) on a short
        context: the task, the last steps and the final answer, within
        :data:`ACHIEVED_TOKEN_BUDGET` tokens, so it costs a few seconds on a CPU. The answer is
        read from the Yes/No token logits (no sampling), cached on disk by content.

        Args:
            trajectory: The run (its recorded outcome is never shown).

        Returns:
            Probability in [0, 1].

        Raises:
            JudgeError: The model failed.
        """
        with self._lock:
            segments = self._achieved_segments(trajectory)
            key = ""
            if self.cache is not None:
                key = content_key(self._prompt_key, prompts.ACHIEVED_PROMPT_ID, token_lists_key(segments))
                hit = self.cache.get(key)
                if isinstance(hit, float):
                    return hit
            p = self._p_yes(self._eval(segments))
            if self.cache is not None:
                self.cache.put(key, p)
            return p

    # --------------------------------------------------------- step questions
    def _step_head(self, traj: Trajectory) -> list[list[int]]:
        """Segments shared by every step question of a run: instructions, then the task."""
        static = self._bos + self._special(self.chat_format.user_open) + self._text(prompts.STEP_INTRO)
        task, _ = self._clip(self._text(prompts.task_section(traj, failed_known=True)), self.task_token_budget)
        return [static, task]

    def _excerpt(self, traj: Trajectory, step: int) -> list[int]:
        n = len(traj.steps)
        first, last = max(0, step - self.context_before), min(n - 1, step + self.context_after)
        out = self._text(prompts.EXCERPT_HEADER.format(first=first, last=last, total=n))
        for pos in range(first, last + 1):
            budget = self.focus_step_budget if pos == step else self.context_step_budget
            toks, _ = self._clip(self._text(prompts.render_step(traj.steps[pos])), budget)
            out.extend(toks)
        return out

    def _check_steps(self, traj: Trajectory, steps: Sequence[int]) -> None:
        n = len(traj.steps)
        bad = [s for s in steps if not 0 <= int(s) < n]
        if bad:
            raise JudgeError(f"step(s) {', '.join(map(str, bad))} out of range: the run has {n} steps")

    def _ask(self, kind: str, segments: list[list[int]]) -> Any:
        key = content_key(self._prompt_key, kind, token_lists_key(segments)) if self.cache is not None else ""
        if self.cache is not None:
            hit = self.cache.get(key)
            if kind == "candidate" and isinstance(hit, float):
                return hit
            if kind == "classify" and isinstance(hit, list) and len(hit) == len(self._digit_ids):
                return hit
        logits = self._eval(segments)
        answer: Any = self._p_yes(logits) if kind == "candidate" else self._digits(logits)
        if self.cache is not None:
            self.cache.put(key, answer)
        return answer

    def candidate_scores(self, trajectory: Trajectory, steps: Sequence[int]) -> dict[int, float]:
        """P(Yes) to "is this step the decisive mistake?" for each candidate step.

        Each candidate gets a short focused context: the task, the step (clipped to
        ``focus_step_budget`` tokens) and ``context_before``/``context_after`` neighbouring
        steps (clipped to ``context_step_budget``). The instructions and the task are shared
        segments, so their KV cache is reused across candidates (and the instructions across
        runs). Cost per candidate: roughly its context plus a 25-token question. Pass the
        steps best first: the first one's context stays in the KV cache, so a following
        :meth:`classify` of that step only evaluates its question.

        Args:
            trajectory: The run.
            steps: Candidate step indices (0-based positions).

        Returns:
            Step -> probability in [0, 1].

        Raises:
            JudgeError: A step is out of range, or the model failed.
        """
        with self._lock:
            self._check_steps(trajectory, steps)
            head = self._step_head(trajectory)
            tail = self._special(self.chat_format.assistant_open)
            out: dict[int, float] = {}
            # Last given is evaluated first, so the first given (the caller's best candidate)
            # is the one left in the KV cache: classify() on it then costs only its question.
            for s in reversed(list(dict.fromkeys(int(x) for x in steps))):
                q = self._text(prompts.CANDIDATE_QUESTION.format(step=s))
                out[s] = float(self._ask("candidate", [*head, self._excerpt(trajectory, s), q + tail]))
            return {int(s): out[int(s)] for s in steps}

    def classify(self, trajectory: Trajectory, step: int) -> dict[str, float]:
        """Distribution over the taxonomy categories with keys 1-9 for the mistake at ``step``.

        The prompt lists the categories by number; the probabilities are the softmax of the
        logits of the digit tokens 1-9. The focused context is the one
        :meth:`candidate_scores` uses, so its KV cache is reused when both are asked.

        Args:
            trajectory: The run.
            step: Step index (0-based position).

        Returns:
            Category id -> probability (sums to 1; ``other`` is not asked for).

        Raises:
            JudgeError: The step is out of range, or the model failed.
        """
        with self._lock:
            self._check_steps(trajectory, [step])
            q = self._text(prompts.CLASSIFY_QUESTION.format(step=int(step)))
            segments = [*self._step_head(trajectory), self._excerpt(trajectory, int(step)),
                        q + self._special(self.chat_format.assistant_open)]
            probs = self._ask("classify", segments)
            ids = [c.id.value for c in CATEGORIES if c.key != "0"]
            return {cid: float(p) for cid, p in zip(ids, probs, strict=True)}

    # -------------------------------------------------------------- lifecycle
    def reset(self) -> None:
        """Forget the KV cache (the next call evaluates its prompt from scratch)."""
        with self._lock:
            self._truncate(0)
            self._segments.clear()

    def close(self) -> None:
        """Free the model and its context."""
        with self._lock:
            close = getattr(self._llm, "close", None)
            if close is not None:
                close()
            if self.cache is not None:
                self.cache.close()

    def __enter__(self) -> LlamaJudge:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def resolve_model(path_or_name: str | os.PathLike[str] | None) -> tuple[Path, str]:
    """Path and model id for a packaged model name, a GGUF path, or None (the setting/default).

    Args:
        path_or_name: ``"gemma3-270m"``, ``"smollm2-135m"``, a ``.gguf`` path, or None.

    Returns:
        (path, model id).

    Raises:
        ModelUnavailable: Unknown name, missing package, missing or non-GGUF file.
    """
    if path_or_name is None:
        path_or_name = load_settings().judge_model or DEFAULT_JUDGE_MODEL
    text = os.fspath(path_or_name)
    canonical = packaged_model_name(text)
    if canonical is not None and not Path(text).exists():
        path = locate_default_model(canonical)
        check_gguf_file(path)
        return path, f"{canonical}@{model_fingerprint(path)}"
    path = Path(text).expanduser()
    if not path.exists():
        known = ", ".join(sorted(PACKAGED_MODELS))
        raise ModelUnavailable(f"judge model not found: '{text}' is neither a packaged model ({known}) "
                               "nor an existing .gguf file")
    check_gguf_file(path)
    try:
        fingerprint = model_fingerprint(path)
    except OSError as exc:
        raise ModelUnavailable(f"cannot read judge model file {path}: {exc}") from exc
    return path, f"{path.stem}@{fingerprint}"


def load_judge(path_or_name: str | os.PathLike[str] | None = None, *, n_ctx: int = DEFAULT_N_CTX,
               n_threads: int | None = None, seed: int = DEFAULT_SEED, cache: ScoreCache | bool = True,
               step_token_budget: int = STEP_TOKEN_BUDGET,
               focus_step_budget: int = FOCUS_STEP_BUDGET,
               context_step_budget: int = CONTEXT_STEP_BUDGET,
               context_before: int = CONTEXT_BEFORE, context_after: int = CONTEXT_AFTER,
               value_window_tokens: int = VALUE_WINDOW_TOKENS) -> LlamaJudge:
    """Load a judge model.

    Args:
        path_or_name: Packaged model name (``"gemma3-270m"``, ``"smollm2-135m"``), path of any
            ``.gguf`` file, or None for the model chosen in settings (else the default).
        n_ctx: Context length wanted; capped at the model's training context.
        n_threads: CPU threads (default: :func:`default_threads`).
        seed: Fixed seed (no sampling happens; kept for determinism of the backend).
        cache: True for the on-disk answer cache in the cache folder, False for none, or a cache.
        step_token_budget: Tokens per step in the value curve.
        focus_step_budget: Tokens for the judged step in focused contexts.
        context_step_budget: Tokens per neighbouring step in focused contexts.
        context_before: Steps shown before the judged step in focused contexts.
        context_after: Steps shown after the judged step in focused contexts.
        value_window_tokens: Longest value-curve prompt before the step window slides.

    Returns:
        The judge.

    Raises:
        ModelUnavailable: The model file is missing or corrupt, or llama-cpp-python is missing.
    """
    path, model_id = resolve_model(path_or_name)
    try:
        import llama_cpp
    except ImportError as exc:
        raise ModelUnavailable("the judge needs llama-cpp-python, which is not installed "
                               "(pip install 'trajscope[models]'; build it with "
                               "CMAKE_ARGS=-DGGML_NATIVE=OFF)") from exc
    threads = n_threads or default_threads()

    def make(ctx: int) -> Any:
        # swa_full: sliding-window layers keep every cell, so the cache can be rolled back
        # exactly (a pruned window would lose cells the next step needs).
        # flash_attn: halves the per-token attention cost growth with context on CPU.
        return llama_cpp.Llama(model_path=str(path), n_ctx=ctx, n_batch=512, n_ubatch=512,
                               n_threads=threads, n_threads_batch=threads, seed=seed,
                               logits_all=False, swa_full=True, flash_attn=True, verbose=False)

    try:
        llm = make(n_ctx)
        trained = int(llm._model.n_ctx_train())
        if 0 < trained < n_ctx:
            llm.close()
            llm = make(trained)
    except Exception as exc:  # llama.cpp reports load failures as ValueError/RuntimeError
        raise ModelUnavailable(f"could not load the judge model {path}: {exc}. The file may be "
                               "truncated or corrupt, or its architecture is not supported by "
                               "this llama-cpp-python") from exc
    store = cache if isinstance(cache, ScoreCache) else (ScoreCache() if cache else None)
    try:
        return LlamaJudge(llm, model_path=path, model_id=model_id, cache=store,
                          step_token_budget=step_token_budget, focus_step_budget=focus_step_budget,
                          context_step_budget=context_step_budget, context_before=context_before,
                          context_after=context_after, value_window_tokens=value_window_tokens)
    except ModelUnavailable:
        llm.close()
        raise


def _conforms(judge: LlamaJudge) -> Judge:
    """Static check (mypy) that :class:`LlamaJudge` satisfies the :class:`Judge` protocol."""
    return judge


def _conforms_achieved(judge: LlamaJudge) -> AchievedJudge:
    """Static check (mypy) that :class:`LlamaJudge` satisfies the :class:`AchievedJudge` protocol."""
    return judge
