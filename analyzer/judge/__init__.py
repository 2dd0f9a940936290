"""Local judge models: answers read as probabilities from next-token logits.

``load_judge()`` gives a :class:`LlamaJudge` (llama-cpp-python, imported lazily) for a packaged
model name or any GGUF path; it raises :class:`analyzer.errors.ModelUnavailable` with plain
words when the model or backend is missing, so callers can carry on without a judge.
"""

from analyzer.judge.base import AchievedJudge, Judge, JudgeError, ValueCurve
from analyzer.judge.llama import LlamaJudge, load_judge, resolve_model
from analyzer.judge.models import (
    DEFAULT_JUDGE_MODEL,
    PACKAGED_MODELS,
    locate_default_model,
    packaged_model_name,
)
from analyzer.judge.prompts import PROMPT_VERSION

__all__ = [
    "DEFAULT_JUDGE_MODEL",
    "PACKAGED_MODELS",
    "PROMPT_VERSION",
    "AchievedJudge",
    "Judge",
    "JudgeError",
    "LlamaJudge",
    "ValueCurve",
    "load_judge",
    "locate_default_model",
    "packaged_model_name",
    "resolve_model",
]
