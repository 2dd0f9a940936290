"""Every sample file is claimed by the importer of its folder (no file by the wrong importer)."""

from __future__ import annotations

from pathlib import Path

from analyzer.loading.loader import claim, iter_files
from analyzer.plugin_host.registry import default_host

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_traces"
BY_FOLDER = {
    "codex_cli": "codex_cli",
    "adp": "adp", "anthropic": "chat", "openai_chat": "chat", "atif": "atif", "harbor": "atif", "harbor_job": "atif",
    "claude_code": "claude_code",
    "generic": "generic", "mini_swe_agent": "mini_swe_agent", "mini_swe_agent_swebench": "mini_swe_agent",
    "swe_agent": "swe_agent",
    "openhands": "openhands", "openhands_resolver": "openhands", "otel": "otel", "tau_bench": "tau_bench",
    "who_and_when": "who_and_when", "langfuse": "langfuse", "langsmith": "langsmith", "mlflow": "mlflow",
    "phoenix": "phoenix", "otel_sdk": "otel_sdk", "signals": "generic",
}
EXCEPTIONS = {"otel/support_refund_openinference.jsonl": "phoenix"}  # a Phoenix span-row export


def test_each_sample_is_claimed_by_its_importer() -> None:
    host = default_host()
    seen: set[str] = set()
    for path in iter_files([SAMPLES]):
        if any(s.is_sidecar(path) for s in host.importers()):
            continue
        spec, candidates, problem = claim(path, host)
        if not candidates:
            continue  # README, licences, reward.txt
        folder = path.relative_to(SAMPLES).parts[0]
        want = BY_FOLDER.get(folder)
        want = EXCEPTIONS.get(path.relative_to(SAMPLES).as_posix(), want)
        if folder == "inspect":
            want = "inspect_eval" if path.suffix == ".eval" else "inspect_json"
        assert problem is None and spec is not None and spec.id == want, (path, spec and spec.id, problem)
        seen.add(folder)
    assert seen == set(BY_FOLDER) | {"inspect"}
