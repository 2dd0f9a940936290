"""Arbitrary bytes never raise out of the ADP, ATIF (Harbor) and OpenHands importers, nor out of
claiming by structure."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from analyzer.loading.loader import near_miss
from analyzer.loading.structure import json_shape
from analyzer.plugin_host.registry import default_host
from plugins.importers.adp import AdpImporter
from plugins.importers.atif import AtifImporter
from plugins.importers.openhands import OpenHandsImporter
from tests.plugins.importer_fuzz import read_all

IMPORTERS = [AdpImporter(), AtifImporter(), OpenHandsImporter()]
PREFIXES = [b"", b"{", b"[", b'{"id": "x", "content": [', b'{"schema_version": "ATIF-v1.6", "steps": [',
            b'{"issue": {}, "instruction": "i", "history": [']


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(prefix=st.sampled_from(PREFIXES), body=st.binary(max_size=400), suffix=st.sampled_from([".json", ".jsonl"]))
def test_arbitrary_bytes_never_raise(tmp_path: Path, prefix: bytes, body: bytes, suffix: str) -> None:
    path = tmp_path / f"junk{suffix}"
    path.write_bytes(prefix + body)
    shape = json_shape(path)
    host = default_host()
    for imp in IMPORTERS:
        imp.sniff(path.read_bytes()[:65536], path)
        if shape is not None:
            imp.sniff_structure(shape, path)
            imp.near_miss(shape, path)
        read_all(imp, path)
    near_miss(path, host.importers(), host)
