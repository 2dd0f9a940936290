"""Model names as groups: provider prefixes removed, the analyst's aliases applied.

``anthropic/claude-3-7-sonnet-20250219`` and ``claude-3-7-sonnet-20250219`` are one model, as
are ``openai/o4-mini`` and ``o4-mini``: routing prefixes (LiteLLM/OpenRouter style
``provider/model``) are stripped. Organisation prefixes of model hubs (``Qwen/Qwen2.5-7B``)
are part of the name and stay.

The alias table (kept in the workspace, :mod:`analyzer.workspace.aliases`) maps a name to
its group and wins over the normalisation: ``a -> b`` merges ``a`` into ``b``; ``a -> a``
keeps ``a`` apart even where the normalisation would merge it (a split).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import polars as pl

PROVIDER_PREFIXES: frozenset[str] = frozenset({
    "anthropic", "openai", "azure", "azure_ai", "google", "gemini", "vertex_ai", "vertex", "vertex_ai_beta",
    "bedrock", "aws", "mistral", "mistralai", "cohere", "groq", "together", "together_ai", "togetherai",
    "fireworks", "fireworks_ai", "deepseek", "xai", "openrouter", "ollama", "ollama_chat", "perplexity",
    "anyscale", "deepinfra", "replicate", "hosted_vllm", "vllm", "litellm_proxy", "litellm", "databricks",
    "cerebras", "sambanova", "nvidia_nim", "watsonx", "cloudflare", "huggingface", "text-completion-openai",
})
"""Routing prefixes (``provider/``) that name who serves a model, not the model."""

NAMES_SEPARATOR = "; "
"""Separator of the raw names listed for a group (``names`` column of ``models.csv``)."""


def normalise_model(name: str) -> str:
    """A model name without routing prefixes (``openrouter/anthropic/x`` -> ``x``).

    Args:
        name: Model name as a trace spells it.

    Returns:
        The name with surrounding space and every leading provider prefix removed; the name
        itself when nothing would be left.
    """
    text = name.strip()
    while "/" in text:
        head, _, tail = text.partition("/")
        if head.strip().lower() not in PROVIDER_PREFIXES or not tail.strip():
            break
        text = tail.strip()
    return text


def model_group(name: str, aliases: Mapping[str, str] | None = None) -> str:
    """The group of one model name: its alias, else the alias of its normalised name, else that name."""
    table = aliases or {}
    if name in table:
        return table[name]
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
