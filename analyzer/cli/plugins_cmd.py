"""``trajscope plugins [--json]``: list the discovered plugins, their importers and detectors.

Every declared importer and detector is imported once so that a broken one shows as
``failed`` with its error (discovery alone runs no plugin code). Exit code 1 when any plugin
failed.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

import orjson


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add the ``plugins`` subcommand."""
    p = sub.add_parser("plugins", help="list installed plugins with their status, importers and detectors")
    p.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    p.set_defaults(func=run)


def plugin_report(host: Any) -> dict[str, Any]:
    """Load every declared importer/detector of ``host`` and describe plugins and their parts.

    Args:
        host: A discovered :class:`analyzer.plugin_host.PluginHost`.

    Returns:
        ``{"plugins": [...], "importers": [...], "detectors": [...]}`` with a ``status``
        (``ok``/``failed``) and ``error`` on every entry.
    """
    from analyzer.errors import PluginError

    importers = []
    for spec in host.importers():
        status, error = "ok", None
        try:
            host.load_importer(spec.id)
        except PluginError as exc:
            status, error = "failed", str(exc)
        importers.append({"id": spec.id, "title": spec.title, "plugin": spec.plugin, "callable": spec.callable,
                          "patterns": list(spec.patterns), "priority": spec.priority,
                          "status": status, "error": error})
    detectors = []
    for dspec in host.detectors():
        status, error = "ok", None
        try:
            host.load_detector(dspec.id)
        except PluginError as exc:
            status, error = "failed", str(exc)
        detectors.append({"id": dspec.id, "title": dspec.title, "plugin": dspec.plugin, "callable": dspec.callable,
                          "categories": list(dspec.categories), "needs_embeddings": dspec.needs_embeddings,
                          "status": status, "error": error})
    plugins = [{"name": r.name, "source": r.source, "status": r.status, "error": r.error,
                "importers": list(r.importers), "detectors": list(r.detectors)} for r in host.records]
    return {"plugins": plugins, "importers": importers, "detectors": detectors}


def run(args: argparse.Namespace) -> int:
    """Execute ``plugins``."""
    from analyzer.plugin_host import default_host

    report = plugin_report(default_host())
    failed = any(e["status"] != "ok" for key in ("plugins", "importers", "detectors") for e in report[key])
    if args.json:
        sys.stdout.write(orjson.dumps(report).decode() + "\n")
        return 1 if failed else 0
    for p in report["plugins"]:
        print(f"{p['name']}  [{p['status']}]  {p['source']}")
        if p["error"]:
            print(f"  error: {p['error']}")
    print(f"\nimporters ({len(report['importers'])}):")
    for i in report["importers"]:
        print(f"  {i['id']:<20} {i['status']:<7} prio {i['priority']:>4}  {', '.join(i['patterns'])}  ({i['plugin']})")
        if i["error"]:
            print(f"    error: {i['error']}")
    print(f"\ndetectors ({len(report['detectors'])}):")
    for d in report["detectors"]:
        print(f"  {d['id']:<20} {d['status']:<7} {', '.join(d['categories'])}  ({d['plugin']})")
        if d["error"]:
            print(f"    error: {d['error']}")
    return 1 if failed else 0
