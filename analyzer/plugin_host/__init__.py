"""Plugin host: static discovery of importers and detectors, lazy loading of their code."""

from analyzer.plugin_host.protocols import DetectionContext, Detector, ImportContext, Importer
from analyzer.plugin_host.registry import (
    ENTRY_POINT_GROUP,
    DetectorSpec,
    ImporterSpec,
    PluginHost,
    PluginRecord,
    default_host,
)

__all__ = [
    "ENTRY_POINT_GROUP",
    "DetectionContext",
    "Detector",
    "DetectorSpec",
    "ImportContext",
    "Importer",
    "ImporterSpec",
    "PluginHost",
    "PluginRecord",
    "default_host",
]
