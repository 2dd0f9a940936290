"""Console entry point ``trajscope``: the headless CLI plus the ``open`` subcommand.

Qt is imported only when ``open`` runs, so headless subcommands start fast and work
without a display.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path


def _register_open(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("open", help="open the desktop app (default when no command is given)")
    p.add_argument("paths", nargs="*", type=Path, help="trace files or folders to open")
    p.add_argument("--screenshot", type=Path, help="render the main window to this PNG and exit")
    p.add_argument("--select", help="run id to select (with --screenshot)")
    p.add_argument("--tab", default="run", help="with --screenshot: run | compare | tagging")
    p.add_argument("--workspace", type=Path, help="workspace database file")
    p.set_defaults(func=_run_open)


def _run_open(args: argparse.Namespace) -> int:
    from ui.app import run_app

    return run_app(args)


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``trajscope``."""
    from analyzer.cli import main as core_main

    return core_main(argv, extra=[_register_open], default="open")


if __name__ == "__main__":
    sys.exit(main())
