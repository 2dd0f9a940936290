"""The HTML report in Debian's headless Chromium: loads cleanly, runs no script, renders."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from report_fixtures import hostile_frames

from analyzer.export import CSP, ReportOptions, render_html

pytestmark = pytest.mark.chromium

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars", "--enable-logging=stderr", "--v=0"]


def chromium(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    assert exe, "these tests need Debian's chromium (apt-get install chromium)"
    profile = tmp_path / f"profile-{len(list(tmp_path.glob('profile-*')))}"
    return subprocess.run([exe, *FLAGS, f"--user-data-dir={profile}", *args], capture_output=True, text=True,
                          timeout=180, check=False)


def console_lines(stderr: str) -> list[str]:
    """Console messages and CSP refusals the page produced."""
    return [line for line in stderr.splitlines() if "CONSOLE" in line or "Refused to" in line
            or "Uncaught" in line]


def title_of(dom: str) -> str:
    m = re.search(r"<title>(.*?)</title>", dom, re.S)
    assert m, dom[:500]
    return m.group(1)


@pytest.fixture
def report_file(tmp_path: Path) -> Path:
    traces, steps, result, annotations = hostile_frames()
    path = tmp_path / "report.html"
    path.write_text(render_html(traces, steps, result, annotations, ReportOptions(title="Hostile report")),
                    encoding="utf-8")
    return path


def test_the_harness_sees_script_and_console_errors(tmp_path: Path) -> None:
    """Controls: a page that runs script changes its title, and a CSP refusal is logged."""
    live = tmp_path / "live.html"
    live.write_text("<html><head><title>Safe</title></head><body>"
                    "<script>document.title='PWNED'; console.error('boom')</script></body></html>")
    run = chromium(tmp_path, "--dump-dom", live.as_uri())
    assert title_of(run.stdout) == "PWNED"
    assert any("boom" in line for line in console_lines(run.stderr)), run.stderr[-2000:]
    blocked = tmp_path / "blocked.html"
    blocked.write_text(f'<html><head><meta http-equiv="Content-Security-Policy" content="{CSP}">'
                       "<title>Safe</title></head><body><script>document.title='PWNED'</script></body></html>")
    run = chromium(tmp_path, "--dump-dom", blocked.as_uri())
    assert title_of(run.stdout) == "Safe"
    assert any("Content Security Policy" in line for line in console_lines(run.stderr)), run.stderr[-2000:]


def test_report_runs_no_script_and_logs_no_errors(tmp_path: Path, report_file: Path) -> None:
    run = chromium(tmp_path, "--dump-dom", report_file.as_uri())
    assert run.returncode == 0, run.stderr[-2000:]
    dom = run.stdout
    assert title_of(dom) == "Hostile report"
    assert "PWNED" not in title_of(dom)
    assert "<script" not in dom.lower()
    assert "&lt;script&gt;document.title='PWNED'&lt;/script&gt;" in dom
    assert dom.count('<article class="run"') == 2
    assert console_lines(run.stderr) == [], console_lines(run.stderr)


def test_report_renders_to_a_screenshot(tmp_path: Path, report_file: Path) -> None:
    shot = tmp_path / "report.png"
    run = chromium(tmp_path, "--window-size=1200,1600", f"--screenshot={shot}", report_file.as_uri())
    assert run.returncode == 0, run.stderr[-2000:]
    data = shot.read_bytes()
    assert data.startswith(b"\x89PNG") and len(data) > 20_000
    assert console_lines(run.stderr) == [], console_lines(run.stderr)
