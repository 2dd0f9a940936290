"""Model names as groups: routing prefixes and date stamps removed, the analyst's aliases applied.

The names people use for a model leave out who serves it and which dated snapshot it is, so
these fold into one group automatically (:func:`normalise_model`):

- routing prefixes (LiteLLM/OpenRouter style ``provider/model``, Google's ``models/``, Vertex
  ``projects/…/publishers/google/models/…`` and Fireworks ``accounts/…/models/…`` paths):
  ``anthropic/claude-3-7-sonnet-20250219`` -> ``claude-3-7-sonnet``, ``openai/o4-mini`` -> ``o4-mini``;
- date stamps at the end, as OpenAI (``gpt-4o-mini-2024-07-18``), Anthropic
  (``claude-sonnet-4-5-20250929``), Vertex (``claude-3-5-sonnet@20240620``) and Google
  previews (``gemini-2.5-flash-preview-05-20``, ``…-preview-09-2025``) write them, and the moving
  alias ``-latest`` (``mistral-large-latest``, ``claude-3-5-sonnet-latest``, Ollama ``:latest``);
- the Bedrock form ``us.anthropic.claude-3-5-sonnet-20241022-v2:0``: region and vendor prefix,
  the ``:0`` revision, and a ``-vN`` right next to a date stamp.

Version numbers are part of the name and stay: ``claude-sonnet-4-5``, ``gpt-3.5-turbo``,
``gemini-1.5-pro-002``. Four-digit tags stay too, because they are versions or release names as
often as dates (``mistral-large-2407``, ``deepseek-r1-0528``, ``gpt-4-0613``); so do fine-tuned
models (``ft:gpt-4o-mini-2024-07-18:org::id``) and organisation prefixes of model hubs
(``Qwen/Qwen2.5-7B``). Distinct snapshots of one model (``claude-3-5-sonnet-20240620`` and
``-20241022``) fold together too: the ``names`` of a group list what was folded, and the analyst
splits a group where the snapshots should count apart.

The alias table (kept in the workspace, :mod:`analyzer.workspace.aliases`) maps a name to
its group and wins over the automatic folding: ``a -> b`` merges ``a`` into ``b``; ``a -> a``
keeps ``a`` apart even where the folding would merge it (a split).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

import polars as pl

PROVIDER_PREFIXES: frozenset[str] = frozenset({
    "anthropic", "openai", "azure", "azure_ai", "google", "gemini", "vertex_ai", "vertex", "vertex_ai_beta",
    "bedrock", "aws", "mistral", "mistralai", "cohere", "groq", "together", "together_ai", "togetherai",
    "fireworks", "fireworks_ai", "deepseek", "xai", "openrouter", "ollama", "ollama_chat", "perplexity",
    "anyscale", "deepinfra", "replicate", "hosted_vllm", "vllm", "litellm_proxy", "litellm", "databricks",
    "cerebras", "sambanova", "nvidia_nim", "watsonx", "cloudflare", "huggingface", "text-completion-openai",
    "models",
})
"""Routing prefixes (``provider/``) that name who serves a model, not the model (``models/`` is
the resource prefix of Google's API)."""

NAMES_SEPARATOR = "; "
"""Separator of the raw names listed for a group (``names`` column of ``models.csv``)."""

_YEAR = r"20[2-3]\d"
_MONTH = r"(?:0[1-9]|1[0-2])"
_DAY = r"(?:0[1-9]|[12]\d|3[01])"
_DATE_SUFFIX = re.compile(
    rf"(?:[-_]{_YEAR}-{_MONTH}-{_DAY}"      # OpenAI: gpt-4o-mini-2024-07-18
    rf"|[-_]{_YEAR}{_MONTH}{_DAY}"          # Anthropic: claude-sonnet-4-5-20250929
    rf"|@{_YEAR}-?{_MONTH}-?{_DAY}"         # Vertex: claude-3-5-sonnet@20240620
    r"|[-:@]latest)$",                      # moving aliases: mistral-large-latest, llama3.1:latest
    re.IGNORECASE)
_PREVIEW_DATE = re.compile(
    rf"(?:(?<=-preview)|(?<=-exp))-(?:{_MONTH}-{_DAY}|{_MONTH}-{_YEAR})$", re.IGNORECASE)
"""Google previews: gemini-2.5-flash-preview-05-20, gemini-2.5-flash-preview-09-2025."""
_VERTEX_VERSION = re.compile(rf"-v\d+(?=@{_YEAR}-?{_MONTH}-?{_DAY}$)", re.IGNORECASE)
"""claude-3-5-sonnet-v2@20241022: the -v2 names the dated snapshot, as the date does."""
_BEDROCK = re.compile(
    r"^(?:(?:us|eu|apac|us-gov|global|jp|au|ca)\.)?"
    r"(?:anthropic|meta|amazon|mistral|cohere|ai21|deepseek|writer|openai|qwen)\."
    r"(?P<model>[a-z0-9][\w.\-]*?)(?::\d+)?$", re.IGNORECASE)
"""Bedrock model ids: [region.]vendor.model[:revision]."""
_DATED_REVISION = re.compile(rf"(?<=[-_]{_YEAR}{_MONTH}{_DAY})-v\d+$", re.IGNORECASE)
_RESOURCE_PATH = re.compile(r"^(?:projects/[^/]+/locations/[^/]+/)?(?:publishers|accounts)/[^/]+/models/(?P<model>[^/]+)$")


def strip_provider(name: str) -> str:
    """The name without routing prefixes and resource paths (dates kept): ``openai/x-2024-07-18`` -> ``x-2024-07-18``."""
    text = name.strip()
    while "/" in text:
        head, _, tail = text.partition("/")
        if head.strip().lower() not in PROVIDER_PREFIXES or not tail.strip():
            break
        text = tail.strip()
    path = _RESOURCE_PATH.match(text)
    return path.group("model") if path else text


def normalise_model(name: str) -> str:
    """The name people use for a model: routing prefixes, date stamps and ``-latest`` removed.

    ``openrouter/anthropic/claude-sonnet-4-5-20250929`` -> ``claude-sonnet-4-5``; see the module
    docstring for what folds and what stays.

    Args:
        name: Model name as a trace spells it.

    Returns:
        The folded name; the name without surrounding space when folding would leave nothing.
    """
    text = strip_provider(name)
    bedrock = _BEDROCK.match(text)
    if bedrock:
        text = _DATED_REVISION.sub("", bedrock.group("model"))
    text = _VERTEX_VERSION.sub("", text)
    folded = _DATE_SUFFIX.sub("", text)
    if folded == text:
        folded = _PREVIEW_DATE.sub("", text)
    folded = folded.strip()
    return folded if folded and folded[-1] not in "-_.:@/" else text or name.strip()


def model_group(name: str, aliases: Mapping[str, str] | None = None) -> str:
    """The group of one model name: the alias of the most specific of its spellings, else its folded name.

    The spellings are the name as written, without routing prefixes, and folded
    (:func:`normalise_model`): a split ``gpt-4o-mini-2024-07-18`` keeps
    ``openai/gpt-4o-mini-2024-07-18`` with it.
    """
    table = aliases or {}
    if name in table:
        return table[name]
    bare = strip_provider(name)
    if bare in table:
        return table[bare]
    norm = normalise_model(name)
    return table.get(norm, norm)


def model_groups(names: Iterable[str], aliases: Mapping[str, str] | None = None) -> dict[str, str]:
    """Raw name -> group for many names."""
    return {n: model_group(n, aliases) for n in names}


def group_members(names: Iterable[str], aliases: Mapping[str, str] | None = None) -> dict[str, list[str]]:
    """Group -> the raw names in it (sorted)."""
    out: dict[str, list[str]] = {}
    for raw, group in model_groups(sorted(set(names)), aliases).items():
        out.setdefault(group, []).append(raw)
    return out


def apply_model_groups(traces: pl.DataFrame, aliases: Mapping[str, str] | None = None,
                       column: str = "model") -> pl.DataFrame:
    """The traces with ``column`` replaced by the model group (null names stay null).

    Args:
        traces: A frame with a model column.
        aliases: The alias table (name -> group), or None for the normalisation only.
        column: The model column.
    """
    if column not in traces.columns or traces.height == 0:
        return traces
    names = [str(n) for n in traces[column].drop_nulls().unique().to_list()]
    mapping = model_groups(names, aliases)
    if all(k == v for k, v in mapping.items()):
        return traces
    return traces.with_columns(pl.col(column).replace(mapping).alias(column))
