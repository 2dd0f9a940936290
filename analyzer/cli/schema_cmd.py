"""``trajscope schema [--out FILE]``: write the JSON Schema of the canonical ``Trajectory``.

The committed copy lives in ``docs/trajectory.schema.json`` (a test keeps it in sync).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import orjson

SCHEMA_URI = "https://json-schema.org/draft/2020-12/schema"


def schema_document() -> dict[str, Any]:
    """The Trajectory JSON Schema with a ``$schema`` marker and the schema version."""
    from analyzer.schema.models import SCHEMA_VERSION, json_schema

    doc: dict[str, Any] = {"$schema": SCHEMA_URI, "x-trajscope-schema-version": SCHEMA_VERSION}
    doc.update(json_schema())
    return doc


def schema_text() -> str:
    """The schema as stable, indented JSON text (sorted keys, trailing newline)."""
    return orjson.dumps(schema_document(), option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS).decode() + "\n"


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add the ``schema`` subcommand."""
    p = sub.add_parser("schema", help="write the JSON Schema of the canonical Trajectory")
    p.add_argument("--out", type=Path, help="file to write (default: stdout)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Execute ``schema``."""
    text = schema_text()
    if args.out is None:
        sys.stdout.write(text)
        return 0
    try:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text, encoding="utf-8")
    except OSError as exc:
        print(f"trajscope schema: cannot write {args.out}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    print(f"wrote {args.out}", file=sys.stderr)
    return 0
