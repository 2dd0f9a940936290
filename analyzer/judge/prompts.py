"""Prompt texts and chat formats of the judge.

Every prompt is one user turn (instructions, task, steps, question) followed by the opening of
the assistant turn, so the next token is the answer and its logits are the probabilities.
The chat format is applied by hand from the model's own turn tokens (Gemma, ChatML, Llama-3);
other models fall back to rendering their GGUF chat template, then to a plain layout.

Bump :data:`PROMPT_VERSION` whenever a text below changes: judge caches are keyed by it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from analyzer.schema.models import Step, Trajectory
from analyzer.taxonomy import CATEGORIES

PROMPT_VERSION = "judge-prompts-1"

VALUE_INTRO = (
    "You are checking the transcript of an AI agent that works on a task, step by step. "
    "Read the task and the steps so far, then answer the question.\n\n"
)
VALUE_QUESTION = "\n\nQuestion: Is the run still on track to succeed? Answer Yes or No."

_LEGEND = "\n".join(f"{c.key}. {c.title}: {c.description}" for c in CATEGORIES if c.key != "0")

STEP_INTRO = (
    "You are reviewing the transcript of an AI agent run that failed. The decisive mistake is "
    "the earliest step after which the task could no longer succeed without a correction.\n"
    "Failure categories:\n" + _LEGEND + "\n\n"
)
CANDIDATE_QUESTION = (
    "\n\nQuestion: Is step {step} the decisive mistake that made the task fail? Answer Yes or No."
)
CLASSIFY_QUESTION = (
    "\n\nQuestion: Which failure category (1-9) best describes the mistake in step {step}? "
    "Answer with the number only."
)
ACHIEVED_PROMPT_ID = "achieved-1"
"""Version of the "does the final state achieve the task?" prompt (bump when its texts change)."""
ACHIEVED_INTRO = (
    "You are checking how an AI agent's run ended. Read the task and the last steps of the run, "
    "then answer the question.\n\n"
)
ACHIEVED_TAIL_HEADER = "\n\nLast steps of the run (steps {first}-{last} of {total}):"
ACHIEVED_NO_STEPS = "\n\nThe run has no steps."
ACHIEVED_ANSWER = "\n\nFinal answer given by the agent: {answer}"
ACHIEVED_QUESTION = "\n\nQuestion: Does the final state of the run achieve the task? Answer Yes or No."
CLIP_MARKER = " [... clipped ...] "
STEPS_HEADER = "\n\nSteps so far:"
EXCERPT_HEADER = "\n\nExcerpt of the run (steps {first}-{last} of {total}):"


def omitted_marker(first_kept: int) -> str:
    """Visible marker for steps that slid out of the context window."""
    return f"\n[... steps 0-{first_kept - 1} omitted to fit the context ...]"


def task_section(trajectory: Trajectory, *, failed_known: bool) -> str:
    """The task statement (and, for step questions, the known outcome)."""
    task = trajectory.task.strip() or "(no task statement)"
    outcome = ""
    if failed_known:
        outcome = ("The run failed.\n" if trajectory.outcome == "failure"
                   else "The run may have failed.\n")
    return f"{outcome}Task:\n{task}"


def render_step(step: Step) -> str:
    """One step as compact text: a newline, then ``[Step i] agent (kind): text``."""
    who = step.agent or str(step.role)
    kind = str(step.kind)
    body = step.text.strip()
    if step.tool_name:
        args = (step.tool_args or "").strip()
        call = f"{step.tool_name}({args})"
        body = f"{call} {body}".strip() if body else call
    if step.is_error:
        err = (step.error_text or "").strip()
        body = f"{body} [ERROR{': ' + err if err else ''}]".strip()
    return f"\n[Step {step.index}] {who} ({kind}): {body}"


@dataclass(frozen=True)
class ChatFormat:
    """The text around one user turn followed by the opening of the assistant turn.

    Attributes:
        name: Family name (``gemma``, ``chatml``, ``llama3``, ``template``, ``plain``).
        user_open: Text before the user content (after BOS).
        assistant_open: Text after the user content, ending where the answer starts.
    """

    name: str
    user_open: str
    assistant_open: str


GEMMA = ChatFormat("gemma", "<start_of_turn>user\n", "<end_of_turn>\n<start_of_turn>model\n")
CHATML = ChatFormat("chatml", "<|im_start|>user\n", "<|im_end|>\n<|im_start|>assistant\n")
LLAMA3 = ChatFormat("llama3", "<|start_header_id|>user<|end_header_id|>\n\n",
                    "<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n")
PLAIN = ChatFormat("plain", "User: ", "\nAssistant:")

_SENTINEL = "\u2063TRAJSCOPE-CONTENT\u2063"


def _from_template(template: str, bos: str, eos: str) -> ChatFormat | None:
    """Split a GGUF jinja chat template around one user message (None if it cannot render)."""
    try:
        from jinja2.sandbox import ImmutableSandboxedEnvironment

        def _raise(msg: str) -> None:
            raise ValueError(msg)

        env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)
        env.globals["raise_exception"] = _raise
        text = env.from_string(template).render(
            messages=[{"role": "user", "content": _SENTINEL}], add_generation_prompt=True,
            bos_token=bos, eos_token=eos)
    except Exception:  # any template error means "use another format"
        return None
    if text.count(_SENTINEL) != 1:
        return None
    before, after = text.split(_SENTINEL)
    if bos and before.startswith(bos):
        before = before[len(bos):]
    if not after:
        return None
    return ChatFormat("template", before, after)


def detect_chat_format(is_special_token: Callable[[str], bool], template: str | None,
                       bos: str = "", eos: str = "") -> ChatFormat:
    """Pick the chat format of a model.

    Args:
        is_special_token: Tells whether a text is one special token of the model's vocabulary.
        template: The GGUF ``tokenizer.chat_template``, if any.
        bos: Text of the BOS token (stripped from a rendered template).
        eos: Text of the EOS token.

    Returns:
        The chat format.
    """
    tpl = template or ""
    if "<start_of_turn>" in tpl or is_special_token("<start_of_turn>"):
        return GEMMA
    if "<|im_start|>" in tpl or is_special_token("<|im_start|>"):
        return CHATML
    if "<|start_header_id|>" in tpl or is_special_token("<|start_header_id|>"):
        return LLAMA3
    if tpl:
        fmt = _from_template(tpl, bos, eos)
        if fmt is not None:
            return fmt
    return PLAIN
