"""Plugin host: entry-point discovery, manifests, broken third-party plugins, built-ins, CLI."""

from __future__ import annotations

import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from analyzer.cli import main
from analyzer.errors import PluginError
from analyzer.loading import load
from analyzer.plugin_host import ENTRY_POINT_GROUP, PluginHost, default_host

ROOT = Path(__file__).resolve().parents[2]
BUILTINS = ROOT / "plugins" / "trajscope.toml"
BROKEN = ROOT / "tests" / "data" / "broken_plugin"
GOOD = ROOT / "sample_traces" / "generic"


@pytest.fixture
def broken_plugins_installed(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Make the fake third-party distribution in tests/data/broken_plugin discoverable."""
    monkeypatch.syspath_prepend(str(BROKEN))
    yield
    for name in [m for m in sys.modules if m.startswith(("trajscope_broken_plugin", "trajscope_badmanifest_plugin"))]:
        del sys.modules[name]


def _record(host: PluginHost, name: str) -> Any:
    (rec,) = [r for r in host.records if r.name == name]
    return rec


# ---- built-ins -----------------------------------------------------------------------------

def test_builtin_entry_point_is_discovered() -> None:
    from importlib.metadata import entry_points

    eps = {ep.name: ep.value for ep in entry_points(group=ENTRY_POINT_GROUP)}
    assert eps.get("builtins") == "plugins:trajscope.toml"
    host = PluginHost().discover()
    rec = _record(host, "trajscope-builtins")
    assert rec.status == "ok" and rec.error is None
    assert rec.source == "builtins = plugins:trajscope.toml"
    assert "generic" in rec.importers
    assert Path(sys.modules["analyzer.plugin_host.registry"]._manifest_path("plugins:trajscope.toml")) == BUILTINS


def test_discovery_runs_no_plugin_code() -> None:
    import subprocess

    code = ("import sys; from analyzer.plugin_host import PluginHost; h = PluginHost().discover(); "
            "print(len(h.importers()) > 0, any(m.startswith('plugins.') for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.split() == ["True", "False"]


def _declared() -> dict[str, list[dict[str, Any]]]:
    return tomllib.loads(BUILTINS.read_text(encoding="utf-8"))


@pytest.mark.parametrize("entry", _declared().get("importers", []), ids=lambda e: e["id"])
def test_every_builtin_importer_loads(entry: dict[str, Any]) -> None:
    host = PluginHost().discover()
    importer = host.load_importer(entry["id"])  # a failing built-in plugin is a test failure
    assert callable(importer.sniff) and callable(importer.read)
    assert importer.sniff(b"", Path("empty.json")) in (False, True)
    assert _record(host, "trajscope-builtins").status == "ok"


@pytest.mark.parametrize("entry", _declared().get("detectors", []) or [{"id": "(none declared)"}],
                         ids=lambda e: e["id"])
def test_every_builtin_detector_loads(entry: dict[str, Any]) -> None:
    if "callable" not in entry:
        return  # no detector declared yet
    host = PluginHost().discover()
    detector = host.load_detector(entry["id"])
    assert callable(detector)
    assert _record(host, "trajscope-builtins").status == "ok"


def test_builtin_manifest_ids_are_unique_and_valid() -> None:
    data = _declared()
    ids = [e["id"] for e in data.get("importers", [])] + [e["id"] for e in data.get("detectors", [])]
    assert len(ids) == len(set(ids))
    host = PluginHost()
    rec = host.register_manifest(BUILTINS)
    assert rec.status == "ok", rec.error


def test_default_host_is_shared_and_discovered() -> None:
    assert default_host() is default_host()
    assert any(s.id == "generic" for s in default_host().importers())


# ---- broken third-party plugins --------------------------------------------------------------

@pytest.mark.usefixtures("broken_plugins_installed")
def test_broken_third_party_plugins_become_failed_records_and_others_still_work() -> None:
    host = PluginHost().discover()

    bad = _record(host, "badmanifest-plugin")
    assert bad.status == "failed" and "bad manifest" in bad.error
    assert bad.importers == [] and "no_callable" not in {s.id for s in host.importers()}

    missing = _record(host, "missing")
    assert missing.status == "failed" and "trajscope_no_such_package" in missing.error

    broken = _record(host, "broken-plugin")
    assert broken.status == "ok"  # discovery imports nothing ...
    assert host.importers()[0].id == "broken_json"  # ... and it outranks the built-ins

    res = load([GOOD], host=host, cache=None)  # ... so its failure shows on first use
    assert res.errors == [] and res.traces.height == 3 and res.formats == {"generic": 3}
    assert broken.status == "failed"
    assert "trajscope_dependency_that_is_not_installed" in broken.error
    assert _record(host, "trajscope-builtins").status == "ok"

    with pytest.raises(PluginError, match=r"cannot load trajscope_broken_plugin\.importer:detect"):
        host.load_detector("broken_detector")


@pytest.mark.usefixtures("broken_plugins_installed")
def test_forcing_a_broken_importer_is_a_clear_error() -> None:
    host = PluginHost().discover()
    res = load([GOOD / "ops_runs.jsonl"], host=host, cache=None, importer="broken_json")
    assert len(res.errors) == 1
    err = res.errors[0]
    assert err.importer == "broken_json" and err.reason.startswith("importer plugin failed to load")


@pytest.mark.parametrize(
    ("manifest", "words"),
    [
        ({"importers": [{"id": "x", "callable": "m:X", "patterns": "*.json"}]}, "patterns must be a list"),
        ({"importers": [{"id": "x"}]}, "KeyError"),
        ({"importers": [{"id": "x", "callable": "no_colon"}]}, "must look like"),
        ({"importers": {"id": "x"}}, "array of tables"),
        ({"detectors": [{"id": "d", "callable": "m:d", "categories": "other"}]}, "categories must be a list"),
        ({"importers": [{"id": "", "callable": "m:X"}]}, "non-empty string"),
        ({"importers": [{"id": "x", "callable": "m:X", "priority": "high"}]}, "ValueError"),
    ],
)
def test_bad_manifests_register_nothing(manifest: dict[str, Any], words: str) -> None:
    host = PluginHost()
    rec = host.register_manifest({"plugin": {"name": "p"}, **manifest}, source="test")
    assert rec.status == "failed" and words in rec.error
    assert host.importers() == [] and host.detectors() == []


def test_unreadable_manifest_file_is_a_failed_record(tmp_path: Path) -> None:
    path = tmp_path / "trajscope.toml"
    path.write_text("[plugin\nname = ")
    rec = PluginHost().register_manifest(path)
    assert rec.status == "failed" and "cannot read manifest" in rec.error
    rec = PluginHost().register_manifest(tmp_path / "missing.toml")
    assert rec.status == "failed" and "FileNotFoundError" in rec.error


def test_duplicate_ids_are_refused_and_reported() -> None:
    host = PluginHost()
    host.register_manifest(BUILTINS)
    rec = host.register_manifest({"plugin": {"name": "clash"}, "importers": [
        {"id": "generic", "callable": "evil:Importer"}, {"id": "mine", "callable": "mine:Importer"}]})
    assert rec.status == "failed" and "generic" in rec.error
    assert host.importer_spec("generic").plugin == "trajscope-builtins"
    assert rec.importers == ["mine"]


def test_unknown_ids_raise_plugin_error() -> None:
    host = PluginHost()
    with pytest.raises(PluginError):
        host.importer_spec("nope")
    with pytest.raises(PluginError):
        host.load_detector("nope")


# ---- `trajscope plugins` -------------------------------------------------------------------

def test_plugins_command_json(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    import analyzer.plugin_host.registry as registry

    monkeypatch.setattr(registry, "_default", PluginHost().discover())
    code = main(["plugins", "--json"])
    out = capsys.readouterr().out
    assert out.count("\n") == 1
    report = orjson.loads(out)
    assert set(report) == {"plugins", "importers", "detectors"}
    (builtins,) = [p for p in report["plugins"] if p["name"] == "trajscope-builtins"]
    assert builtins["status"] == "ok" and builtins["error"] is None
    generic = next(i for i in report["importers"] if i["id"] == "generic")
    assert generic["status"] == "ok" and "*.jsonl" in generic["patterns"]
    assert all(i["status"] == "ok" for i in report["importers"]), report["importers"]
    assert all(d["status"] == "ok" for d in report["detectors"]), report["detectors"]
    assert code == 0


@pytest.mark.usefixtures("broken_plugins_installed")
def test_plugins_command_shows_failures(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    import analyzer.plugin_host.registry as registry

    monkeypatch.setattr(registry, "_default", PluginHost().discover())
    assert main(["plugins"]) == 1
    out = capsys.readouterr().out
    assert "broken-plugin  [failed]" in out and "badmanifest-plugin  [failed]" in out
    assert "broken_json" in out and "trajscope_dependency_that_is_not_installed" in out
    assert "generic" in out
