"""`trajscope import`: exit codes 0/1/2 and the --json shape."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

from analyzer.cli import main

ROOT = Path(__file__).resolve().parents[2]
GOOD = ROOT / "sample_traces" / "generic"
HOSTILE = ROOT / "tests" / "data" / "hostile"


def _run_json(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, Any]]:
    code = main(["import", "--json", "--no-cache", *args])
    out = capsys.readouterr().out
    assert out.endswith("\n") and out.count("\n") == 1, "exactly one JSON object on stdout"
    return code, orjson.loads(out)


def test_all_good_exits_0_with_json_summary(capsys: pytest.CaptureFixture[str]) -> None:
    code, summary = _run_json(capsys, str(GOOD))
    assert code == 0
    assert {"traces", "steps", "formats", "errors"} <= set(summary)
    assert summary["traces"] == 3 and summary["steps"] == 65
    assert summary["formats"] == {"generic": 3}
    assert summary["errors"] == []


def test_some_bad_files_exit_1_with_error_objects(capsys: pytest.CaptureFixture[str]) -> None:
    code, summary = _run_json(capsys, str(GOOD), str(HOSTILE))
    assert code == 1
    # latin1.json loads with its invalid bytes replaced (a note, not an error)
    assert summary["traces"] == 7 and summary["formats"] == {"generic": 7}
    assert len(summary["errors"]) == 10
    assert any("latin1.json" in n and "invalid UTF-8" in n for n in summary["notes"])
    for err in summary["errors"]:
        assert set(err) == {"file", "record", "importer", "reason"}
        assert isinstance(err["file"], str) and Path(err["file"]).parent == HOSTILE
        assert err["record"] is None or isinstance(err["record"], str)
        assert err["importer"] is None or isinstance(err["importer"], str)
        assert isinstance(err["reason"], str) and err["reason"]
    trunc = next(e for e in summary["errors"] if e["file"].endswith("truncated_last_line.jsonl"))
    assert trunc["record"] == "line 9" and trunc["importer"] == "generic"


def test_human_output_lists_formats_and_problems(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["import", "--no-cache", str(GOOD), str(HOSTILE / "empty.json")]) == 1
    out = capsys.readouterr().out
    assert "3 runs, 65 steps from 2 files" in out
    assert "generic" in out and "1 problems:" in out and "empty.json: file is empty" in out


@pytest.mark.parametrize(
    "argv",
    [
        ["import"],  # no paths
        ["import", "/no/such/folder"],
        ["import", str(GOOD), "--importer", "no_such_importer"],
        ["import", str(GOOD), "--bogus-flag"],
        ["no-such-command"],
        [],
    ],
)
def test_bad_usage_exits_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    assert capsys.readouterr().out == ""


def test_importer_override(capsys: pytest.CaptureFixture[str]) -> None:
    code, summary = _run_json(capsys, "--importer", "generic", str(GOOD / "ops_runs.jsonl"))
    assert code == 0 and summary["formats"] == {"generic": 2}


def test_uses_cache_by_default(capsys: pytest.CaptureFixture[str]) -> None:
    import os

    assert main(["import", "--json", str(GOOD)]) == 0
    capsys.readouterr()
    assert any(Path(os.environ["TRAJSCOPE_CACHE_DIR"]).iterdir())
    assert main(["import", "--json", str(GOOD)]) == 0
    assert orjson.loads(capsys.readouterr().out)["traces"] == 3


def test_console_script_end_to_end(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "ui.cli", "import", "--json", str(GOOD), str(HOSTILE / "number.json")],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 1, proc.stderr
    summary = orjson.loads(proc.stdout)
    assert summary["traces"] == 3
    assert [e["reason"].split(",")[0] for e in summary["errors"]] == ["file is a JSON number ('42')"]
