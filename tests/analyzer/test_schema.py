"""The canonical schema's JSON Schema: `trajscope schema`, and the committed copy in docs/."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from analyzer.cli import main
from analyzer.cli.schema_cmd import schema_document, schema_text
from analyzer.schema.models import SCHEMA_VERSION, Step, Trajectory

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = ROOT / "docs" / "trajectory.schema.json"


def test_committed_schema_is_up_to_date() -> None:
    assert COMMITTED.read_text(encoding="utf-8") == schema_text(), (
        "docs/trajectory.schema.json is stale: run `trajscope schema --out docs/trajectory.schema.json`")


def test_schema_describes_trajectory_and_step() -> None:
    doc = schema_document()
    assert doc["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert doc["x-trajscope-schema-version"] == SCHEMA_VERSION
    assert doc["title"] == "Trajectory" and doc["type"] == "object"
    assert set(doc["properties"]) == set(Trajectory.model_fields)
    assert doc["additionalProperties"] is False
    step = doc["$defs"]["Step"]
    assert set(step["properties"]) == set(Step.model_fields)
    assert step["properties"]["index"]["minimum"] == 0
    assert doc["$defs"]["StepKind"]["enum"] == ["user", "system", "thought", "action", "tool_call", "observation",
                                               "message"]


def test_sample_trajectory_fits_schema_properties() -> None:
    sample = orjson.loads((ROOT / "sample_traces" / "generic" / "data_analysis_success.json").read_bytes())
    doc = schema_document()
    assert set(sample) <= set(doc["properties"])
    for s in sample["steps"]:
        assert set(s) <= set(doc["$defs"]["Step"]["properties"])
    Trajectory.model_validate(sample)


def test_schema_command_writes_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "sub" / "schema.json"
    assert main(["schema", "--out", str(out)]) == 0
    assert out.read_text(encoding="utf-8") == schema_text()
    assert main(["schema"]) == 0
    assert orjson.loads(capsys.readouterr().out) == schema_document()


def test_schema_command_reports_unwritable_target(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert main(["schema", "--out", str(blocker / "schema.json")]) == 1
    assert "cannot write" in capsys.readouterr().err
