"""The ranker a workspace asks analyses to use: the shipped params or an analyst's adapted ones.

Only reads params; adapting them to the analyst's labels is training and lives with the
evaluation code (:mod:`analyzer.evaluation.adapt`).
"""

from __future__ import annotations

from typing import Any

from analyzer.attribution.ranker import Ranker, RankerParams

ADAPTED_KIND = "adapted"
"""``meta["kind"]`` of adapted params."""


def describe(params: RankerParams, version_id: int | None = None) -> str:
    """One line naming a ranker for messages (``adapted #3, 12 labels`` or ``shipped ranker-v1``)."""
    meta = params.meta or {}
    if meta.get("kind") == ADAPTED_KIND:
        head = f"adapted #{version_id}" if version_id is not None else "adapted"
        return f"{head} ({meta.get('n_labels', '?')} labels, based on {meta.get('base_version', params.version)})"
    return f"shipped {params.version}"


def workspace_ranker(workspace: Any) -> tuple[Ranker | None, str]:
    """The ranker a workspace asks analyses to use, and a line naming it.

    Args:
        workspace: An open :class:`analyzer.workspace.Workspace`.

    Returns:
        ``(ranker, description)``; ranker None means the shipped weights.

    Raises:
        ValueError: The active version's params are damaged (names the version).
    """
    version = workspace.active_ranker()
    if version is None:
        return None, f"shipped weights ({Ranker.load().params.version}); no adapted ranker is active"
    try:
        params = RankerParams.from_json(version.params)
    except ValueError as exc:
        raise ValueError(f"{workspace.path.name}: adapted ranker #{version.id}: {exc}") from None
    return Ranker(params), describe(params, version.id)
