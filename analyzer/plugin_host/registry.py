"""Static plugin discovery (entry points -> TOML manifests) and lazy loading.

Discovery reads manifests only; no plugin code runs until an importer or detector is
first used. A plugin that fails to load becomes a ``PluginRecord(status="failed")`` row.

Manifest format (``trajscope.toml`` inside the plugin package)::

    [plugin]
    name = "my-plugin"

    [[importers]]
    id = "my_format"
    title = "My format"
    callable = "my_plugin.importer:MyImporter"   # a class (instantiated) or a factory
    patterns = ["*.json", "*.jsonl"]
    priority = 50                                 # higher wins among sniffing importers

    [[detectors]]
    id = "my_detector"
    title = "My detector"
    callable = "my_plugin.detector:detect"
    categories = ["repeated_action"]

The entry point (group ``trajscope.plugins``) names the package and the manifest file:
``my-plugin = "my_plugin:trajscope.toml"``.
"""

from __future__ import annotations

import fnmatch
import importlib
import importlib.util
import threading
import tomllib
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

from analyzer.errors import PluginError

ENTRY_POINT_GROUP = "trajscope.plugins"


@dataclass
class ImporterSpec:
    """An importer declared in a manifest."""

    id: str
    title: str
    callable: str
    patterns: tuple[str, ...]
    priority: int
    plugin: str
    sidecars: tuple[str, ...] = ()

    def matches(self, path: Path) -> bool:
        """True when the file name matches one of the patterns."""
        name = path.name.lower()
        return any(fnmatch.fnmatch(name, p.lower()) for p in self.patterns)

    def names(self, path: Path) -> bool:
        """True when one of the patterns is the file's exact name (no wildcard).

        Only such importers are offered a sidecar file: it is a run for them in some folders
        (a Harbor trial ``result.json`` without a trajectory) and a sidecar in all others.
        """
        name = path.name.lower()
        return any(p.lower() == name and not any(ch in p for ch in "*?[") for p in self.patterns)

    def is_sidecar(self, path: Path) -> bool:
        """True when the file is a companion file this importer reads beside its runs.

        Such files (e.g. SWE-bench ``results.json``) are not run files themselves.
        """
        name = path.name.lower()
        return any(fnmatch.fnmatch(name, p.lower()) for p in self.sidecars)


@dataclass
class DetectorSpec:
    """A detector declared in a manifest."""

    id: str
    title: str
    callable: str
    categories: tuple[str, ...]
    plugin: str
    needs_embeddings: bool = False
    version: str = ""
    """Optional ``version`` of the manifest entry (part of the analysis version; bump it when results change)."""


@dataclass
class PluginRecord:
    """One discovered plugin, with its status.

    Attributes:
        name: Plugin name.
        source: Where it came from (entry point value or manifest path).
        status: ``ok`` or ``failed``.
        error: What failed, in plain words.
        importers: Importer ids it declares.
        detectors: Detector ids it declares.
    """

    name: str
    source: str
    status: str = "ok"
    error: str | None = None
    importers: list[str] = field(default_factory=list)
    detectors: list[str] = field(default_factory=list)


def _manifest_path(value: str) -> Path:
    """Resolve ``package:file.toml`` to a path without importing the package."""
    pkg, _, fname = value.partition(":")
    spec = importlib.util.find_spec(pkg)
    if spec is None or not spec.submodule_search_locations:
        raise PluginError(f"package {pkg!r} not found")
    return Path(next(iter(spec.submodule_search_locations))) / (fname or "trajscope.toml")


def _load_callable(ref: str) -> Any:
    mod_name, _, attr = ref.partition(":")
    mod = importlib.import_module(mod_name)
    obj: Any = mod
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj


def _table_list(data: dict[str, Any], key: str) -> list[Any]:
    value = data.get(key, [])
    if not isinstance(value, list):
        raise TypeError(f"{key} must be an array of tables ([[{key}]])")
    return value


def _str(entry: dict[str, Any], key: str) -> str:
    value = entry[key]
    if not isinstance(value, str) or not value:
        raise TypeError(f"{key} must be a non-empty string")
    return value


def _ref(entry: dict[str, Any]) -> str:
    ref = _str(entry, "callable")
    if ":" not in ref:
        raise ValueError(f"callable {ref!r} must look like 'package.module:name'")
    return ref


class PluginHost:
    """Holds the declared plugins and loads their code on first use."""

    def __init__(self) -> None:
        self.records: list[PluginRecord] = []
        self._importers: dict[str, ImporterSpec] = {}
        self._detectors: dict[str, DetectorSpec] = {}
        self._loaded: dict[str, Any] = {}
        self._lock = threading.Lock()

    # -- discovery -------------------------------------------------------
    def discover(self) -> PluginHost:
        """Read the manifests of every installed ``trajscope.plugins`` entry point."""
        for ep in entry_points(group=ENTRY_POINT_GROUP):
            try:
                self.register_manifest(_manifest_path(ep.value), source=f"{ep.name} = {ep.value}")
            except Exception as exc:  # a broken plugin is a row, never a crash
                self.records.append(PluginRecord(name=ep.name, source=ep.value, status="failed",
                                                 error=f"{type(exc).__name__}: {exc}"))
        return self

    def register_manifest(self, manifest: Path | dict[str, Any], source: str = "") -> PluginRecord:
        """Register the importers and detectors of one manifest (file path or parsed dict).

        A manifest that cannot be read or is malformed registers nothing and becomes a
        ``PluginRecord(status="failed")``; ids already taken by another plugin are refused.
        """
        data: Any = manifest
        if isinstance(manifest, Path):
            source = source or str(manifest)
            try:
                data = tomllib.loads(manifest.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
                rec = PluginRecord(name=manifest.parent.name or source, source=source, status="failed",
                                   error=f"cannot read manifest: {type(exc).__name__}: {exc}")
                self.records.append(rec)
                return rec
        plugin = data.get("plugin") if isinstance(data, dict) else None
        name = str(plugin.get("name", source or "unnamed")) if isinstance(plugin, dict) else (source or "unnamed")
        rec = PluginRecord(name=name, source=source)
        try:
            if not isinstance(data, dict):
                raise TypeError("manifest is not a table")
            importers = [self._importer_spec(imp, name) for imp in _table_list(data, "importers")]
            detectors = [self._detector_spec(det, name) for det in _table_list(data, "detectors")]
        except (KeyError, TypeError, ValueError) as exc:
            rec.status, rec.error = "failed", f"bad manifest: {type(exc).__name__}: {exc}"
            self.records.append(rec)
            return rec
        taken = [s.id for s in importers if s.id in self._importers] + [
            d.id for d in detectors if d.id in self._detectors]
        for spec in importers:
            if spec.id not in self._importers:
                self._importers[spec.id] = spec
                rec.importers.append(spec.id)
        for dspec in detectors:
            if dspec.id not in self._detectors:
                self._detectors[dspec.id] = dspec
                rec.detectors.append(dspec.id)
        if taken:
            rec.status = "failed"
            rec.error = f"ids already declared by another plugin, ignored: {', '.join(taken)}"
        self.records.append(rec)
        return rec

    @staticmethod
    def _importer_spec(imp: Any, plugin: str) -> ImporterSpec:
        if not isinstance(imp, dict):
            raise TypeError("each [[importers]] entry must be a table")
        patterns = imp.get("patterns", ["*"])
        if not isinstance(patterns, list) or not all(isinstance(p, str) for p in patterns):
            raise TypeError(f"importer {imp.get('id')!r}: patterns must be a list of strings")
        sidecars = imp.get("sidecars", [])
        if not isinstance(sidecars, list) or not all(isinstance(p, str) for p in sidecars):
            raise TypeError(f"importer {imp.get('id')!r}: sidecars must be a list of strings")
        return ImporterSpec(id=_str(imp, "id"), title=str(imp.get("title", imp["id"])),
                            callable=_ref(imp), patterns=tuple(patterns),
                            priority=int(imp.get("priority", 0)), plugin=plugin, sidecars=tuple(sidecars))

    @staticmethod
    def _detector_spec(det: Any, plugin: str) -> DetectorSpec:
        if not isinstance(det, dict):
            raise TypeError("each [[detectors]] entry must be a table")
        categories = det.get("categories", [])
        if not isinstance(categories, list) or not all(isinstance(c, str) for c in categories):
            raise TypeError(f"detector {det.get('id')!r}: categories must be a list of strings")
        return DetectorSpec(id=_str(det, "id"), title=str(det.get("title", det["id"])), callable=_ref(det),
                            categories=tuple(categories), plugin=plugin,
                            needs_embeddings=bool(det.get("needs_embeddings", False)),
                            version=str(det.get("version", "")))

    # -- queries ---------------------------------------------------------
    def importers(self) -> list[ImporterSpec]:
        """Declared importers, highest priority first."""
        return sorted(self._importers.values(), key=lambda s: -s.priority)

    def detectors(self) -> list[DetectorSpec]:
        """Declared detectors."""
        return list(self._detectors.values())

    def importer_spec(self, importer_id: str) -> ImporterSpec:
        """Spec of one importer."""
        try:
            return self._importers[importer_id]
        except KeyError:
            raise PluginError(f"no importer with id {importer_id!r}") from None

    # -- lazy loading ----------------------------------------------------
    def _load(self, key: str, ref: str, plugin: str, instantiate: bool) -> Any:
        with self._lock:
            if key in self._loaded:
                return self._loaded[key]
            try:
                obj = _load_callable(ref)
                if instantiate and isinstance(obj, type):
                    obj = obj()
            except Exception as exc:
                msg = f"cannot load {ref}: {type(exc).__name__}: {exc}"
                for rec in self.records:
                    if rec.name == plugin:
                        rec.status, rec.error = "failed", msg
                raise PluginError(msg) from exc
            self._loaded[key] = obj
            return obj

    def load_importer(self, importer_id: str) -> Any:
        """The importer object for an id (imported on first use)."""
        spec = self.importer_spec(importer_id)
        return self._load("imp:" + spec.id, spec.callable, spec.plugin, instantiate=True)

    def load_detector(self, detector_id: str) -> Any:
        """The detector callable for an id (imported on first use)."""
        spec = self._detectors.get(detector_id)
        if spec is None:
            raise PluginError(f"no detector with id {detector_id!r}")
        return self._load("det:" + spec.id, spec.callable, spec.plugin, instantiate=True)


_default: PluginHost | None = None
_default_lock = threading.Lock()


def default_host() -> PluginHost:
    """The process-wide host with every installed plugin discovered."""
    global _default
    with _default_lock:
        if _default is None:
            _default = PluginHost().discover()
        return _default
