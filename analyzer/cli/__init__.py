"""The ``trajscope`` command line (headless subcommands).

Exit codes: 0 everything fine, 1 some input failed, 2 bad usage.
The desktop subcommand ``open`` is added by ``ui.cli`` so this package never imports Qt.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from analyzer.cli import (
    analyze_cmd,
    corpus_cmd,
    eval_cmd,
    import_cmd,
    outcome_cmd,
    plugins_cmd,
    report_cmd,
    schema_cmd,
)

Register = Callable[[argparse._SubParsersAction], None]  # type: ignore[type-arg]

_BUILTIN: list[Register] = [import_cmd.register, analyze_cmd.register, eval_cmd.register, report_cmd.register,
                            schema_cmd.register, plugins_cmd.register, corpus_cmd.register,
                            outcome_cmd.register]


def build_parser(extra: Sequence[Register] = ()) -> argparse.ArgumentParser:
    """The argument parser with every available subcommand."""
    parser = argparse.ArgumentParser(prog="trajscope", description="Where and why did an LLM agent run fail?")
    from analyzer import __version__

    parser.add_argument("--version", action="version", version=f"trajscope {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for reg in _BUILTIN:
        reg(sub)
    for r in extra:
        r(sub)
    return parser


def main(argv: Sequence[str] | None = None, extra: Sequence[Register] = (), default: str | None = None) -> int:
    """Run the CLI and return the exit code."""
    parser = build_parser(extra)
    args_list = list(sys.argv[1:] if argv is None else argv)
    if not args_list and default:
        args_list = [default]
    try:
        args = parser.parse_args(args_list)
    except SystemExit as exc:
        return int(exc.code or 0)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return 2
    code: int = args.func(args)
    return code
