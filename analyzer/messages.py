"""Text made in ``analyzer/`` as a message id plus parameters.

The core never stores finished sentences for the UI: it stores :class:`Message` objects (an
id from a catalogue and typed parameters), renders them in English for the CSV, the CLI and
the reports, and serialises them so the UI can render the same ids in the analyst's
language (``ui/`` translates the English template of each id with Qt's translator).

Parameters are typed by their name, so every renderer treats them alike:

- ``step`` or ``*_step`` (int): a step reference, rendered ``step 12`` (a link in the app);
- ``steps`` or ``*_steps`` (str, comma-separated indices ``"3,7,12"``): a list of step
  references, rendered ``steps 3, 7, 12`` (each number a link in the app);
- ``quote`` or ``*_quote`` (str): verbatim trace text, rendered in curly quotes (escaped by
  the HTML renderers);
- ``category`` or ``*_category`` (str): a taxonomy id, rendered as its title;
- ``share`` or ``*_share`` (float): a fraction, rendered as a percentage;
- any other float: two decimals; anything else: as is (trace text such as an agent name).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from analyzer.taxonomy import BY_ID

Param = str | int | float | bool | None
"""Type of a message parameter (JSON scalars only)."""

STEP_WORD = "step {n}"
"""English form of a step reference."""

STEPS_WORD = "steps {list}"
"""English form of a list of step references."""

STEP_LIST_SEPARATOR = ", "
"""Between the numbers of a list of step references (English)."""


def is_step_param(name: str) -> bool:
    """True for parameters that hold a step index."""
    return name == "step" or name.endswith("_step")


def is_steps_param(name: str) -> bool:
    """True for parameters that hold a list of step indices (comma-separated text)."""
    return name == "steps" or name.endswith("_steps")


def step_list(value: Param) -> list[int]:
    """The step indices of a ``steps`` parameter (``"3,7,12"`` -> ``[3, 7, 12]``; bad parts skipped)."""
    out: list[int] = []
    for part in str(value if value is not None else "").split(","):
        part = part.strip()
        if part.isdigit():
            out.append(int(part))
    return out


def steps_param(steps: Sequence[int]) -> str:
    """The value of a ``steps`` parameter for a list of step indices (``[3, 7, 12]`` -> ``"3,7,12"``)."""
    return ",".join(str(int(s)) for s in steps)


def is_quote_param(name: str) -> bool:
    """True for parameters that hold verbatim trace text."""
    return name == "quote" or name.endswith("_quote")


def is_category_param(name: str) -> bool:
    """True for parameters that hold a taxonomy id."""
    return name == "category" or name.endswith("_category")


def is_share_param(name: str) -> bool:
    """True for parameters that hold a fraction shown as a percentage."""
    return name == "share" or name.endswith("_share")


def format_param_en(name: str, value: Param) -> str:
    """English plain-text form of one parameter (see the module docstring for the rules)."""
    if value is None:
        return ""
    if is_step_param(name) and isinstance(value, int) and not isinstance(value, bool):
        return STEP_WORD.format(n=value)
    if is_steps_param(name):
        return STEPS_WORD.format(list=STEP_LIST_SEPARATOR.join(str(s) for s in step_list(value)))
    if is_quote_param(name):
        return f"“{value}”"
    if is_category_param(name):
        info = BY_ID.get(str(value))
        return info.title if info is not None else str(value)
    if isinstance(value, float):
        return f"{value:.0%}" if is_share_param(name) else f"{value:.2f}"
    return str(value)


@dataclass(frozen=True)
class Message:
    """One translatable piece of text.

    Attributes:
        id: Key of the message in its catalogue.
        params: Values of the template's placeholders (typed by name, see the module docstring).
    """

    id: str
    params: Mapping[str, Param] = field(default_factory=dict)

    def render(self, catalogue: Mapping[str, str],
               fmt: Callable[[str, Param], str] = format_param_en) -> str:
        """The message with its template filled in.

        Args:
            catalogue: Message id -> template with ``{name}`` placeholders.
            fmt: Formats one parameter (default: English plain text).

        Raises:
            KeyError: The id is not in the catalogue or a placeholder has no parameter.
        """
        template = catalogue[self.id]
        return template.format_map({k: fmt(k, v) for k, v in self.params.items()})

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form: ``{"id": ..., "params": {...}}``."""
        return {"id": self.id, "params": dict(self.params)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Message:
        """Inverse of :meth:`to_dict`.

        Raises:
            ValueError: ``data`` is not a message.
        """
        mid = data.get("id")
        params = data.get("params", {})
        if not isinstance(mid, str) or not isinstance(params, dict):
            raise ValueError(f"not a message: {data!r:.200}")
        bad = [k for k, v in params.items() if not isinstance(v, str | int | float | bool | type(None))]
        if bad:
            raise ValueError(f"message {mid}: parameters {bad} are not scalars")
        return cls(mid, dict(params))


def dumps(obj: Mapping[str, Any]) -> str:
    """Compact, stable JSON of a serialised message structure (non-ASCII kept)."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"), sort_keys=False)
