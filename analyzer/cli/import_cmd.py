"""``trajscope import PATH... [--json]``: load files and summarise them per format.

Exits 0 when runs were loaded without a problem, 1 when a file had a problem or no run was
loaded at all, 2 on bad arguments.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import orjson

from analyzer.cli.lang import add_lang_option, chosen_language, load_error_text


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add the ``import`` subcommand."""
    p = sub.add_parser("import", help="load trace files and print a per-format summary")
    p.add_argument("paths", nargs="+", type=Path, help="files or folders")
    p.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    p.add_argument("--importer", help="force an importer id (skip sniffing)")
    p.add_argument("--no-cache", action="store_true", help="do not use the parsed-data cache")
    add_lang_option(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Execute ``import``."""
    from analyzer.errors import PluginError
    from analyzer.loading import ParsedCache, load

    lang = chosen_language(args)
    missing = [str(p) for p in args.paths if not p.exists()]
    if missing:
        print(f"trajscope import: no such file or folder: {', '.join(missing)}", file=sys.stderr)
        return 2
    try:
        res = load(args.paths, cache=None if args.no_cache else ParsedCache(), importer=args.importer)
    except PluginError as exc:
        print(f"trajscope import: {exc}", file=sys.stderr)
        return 2
    summary: dict[str, Any] = {
        "traces": res.traces.height,
        "steps": res.steps.height,
        "formats": res.formats,
        "errors": [e.to_dict() for e in res.errors],
        "files": len(res.files),
        "skipped": res.skipped,
        "notes": res.notes,
    }
    if args.json:
        sys.stdout.write(orjson.dumps(summary).decode() + "\n")
    else:
        print(f"{summary['traces']} runs, {summary['steps']} steps from {summary['files']} files")
        for fmt, n in sorted(res.formats.items()):
            steps = res.steps.join(res.traces.filter(res.traces["source_format"] == fmt).select("trace_id"),
                                   on="trace_id").height
            print(f"  {fmt:<16} {n:>6} runs {steps:>8} steps")
        for note in res.notes:
            print(f"  note: {note}")
        if res.errors:
            print(f"\n{len(res.errors)} problems:")
            for e in res.errors:
                print(f"  {load_error_text(e, lang)}")
        if res.traces.height == 0:
            print("trajscope import: no run was loaded", file=sys.stderr)
    return 1 if res.errors or res.traces.height == 0 else 0
