"""Generate sample_traces/openhands/trajectory.json: interactive session with error accumulation."""
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from oh_common import SYSTEM, Stream, cat_n

OUT = Path(__file__).resolve().parents[4] / "sample_traces" / "openhands"
MODEL = "openai/gpt-4o-2024-11-20"
WD = "/workspace/logsift"

TASK = ("In /workspace/logsift, add a `--since` option to `logsift filter` that keeps only entries at or after the "
        "given ISO-8601 time (e.g. `--since 2024-05-01T12:00:00Z`), like the existing `--until` does for the upper "
        "bound. Add tests for it and keep the existing tests passing.")

CLI = '''"""Command-line interface: ``logsift filter`` and ``logsift stats``."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict

from .model import LEVELS, load_entries
from .stats import summarize
from .timeutil import format_line, parse_time


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="logsift")
    sub = parser.add_subparsers(dest="cmd", required=True)
    f = sub.add_parser("filter", help="print entries matching all filters")
    f.add_argument("path")
    f.add_argument("--level", choices=LEVELS)
    f.add_argument("--until", type=parse_time, help="keep entries before this ISO-8601 time")
    f.add_argument("--grep", help="substring the message must contain")
    f.add_argument("--json", action="store_true", help="print JSON lines")
    s = sub.add_parser("stats", help="entries per level and rate")
    s.add_argument("path")
    return parser


def cmd_filter(args: argparse.Namespace) -> int:
    entries = load_entries(args.path)
    if args.level:
        entries = [e for e in entries if LEVELS.index(e.level) >= LEVELS.index(args.level)]
    if args.until is not None:
        entries = [e for e in entries if e.ts < args.until]
    if args.grep:
        entries = [e for e in entries if args.grep in e.msg]
    for e in entries:
        print(json.dumps(asdict(e)) if args.json else format_line(e))
    return 0


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.cmd == "filter":
        return cmd_filter(args)
    print(summarize(load_entries(args.path)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
'''

MODEL_PY = '''"""Log entries."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

LEVELS = ["DEBUG", "INFO", "WARN", "ERROR"]


@dataclass
class Entry:
    ts: float  # seconds since the epoch, UTC
    level: str
    msg: str
    fields: dict[str, Any] = field(default_factory=dict)


def load_entries(path: str) -> list[Entry]:
    """Read a JSON-lines log file."""
    entries = []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if not line.strip():
                continue
            raw = json.loads(line)
            entries.append(Entry(ts=float(raw["ts"]), level=raw.get("level", "INFO"), msg=raw.get("msg", ""),
                                 fields={k: v for k, v in raw.items() if k not in ("ts", "level", "msg")}))
    return entries
'''


def pytest_fail(fails, passed, details):
    body = "".join(details)
    short = "\n".join(f"FAILED {t} - {m}" for t, m in fails)
    dots = ("F" * len(fails) + "." * passed)
    return (f"{dots:<72} [100%]\n=================================== FAILURES ===================================\n{body}"
            f"=========================== short test summary info ============================\n{short}\n"
            f"{len(fails)} failed, {passed} passed in 0.{20 + len(fails) * 3}s")


def tb(name, src, err, where):
    return f"_{'_' * 10} {name} {'_' * 10}\n\n{src}\nE       {err}\n\n{where}\n"


r = Stream("2025-05-14T15:02:11.000000", MODEL, WD, "logsift")
r.system(SYSTEM)
r.user(TASK)
r.recall(TASK)
r.state("running")
r.run(f"cd {WD} && ls -R logsift tests && python -m pytest -q 2>&1 | tail -n 2",
      "logsift:\n__init__.py\ncli.py\nbuckets.py\nmodel.py\nstats.py\ntimeutil.py\n\ntests:\n__init__.py\nconftest.py\n"
      "data\ntest_buckets.py\ntest_cli.py\ntest_model.py\ntest_stats.py\ntest_timeutil.py\n\ntests/data:\napp.jsonl\n"
      "...............                                                          [100%]\n15 passed in 0.11s",
      thought="Let me look at the project layout and run the tests to get a baseline.", think_secs=4.0)
r.view(f"{WD}/logsift/cli.py", f"Here's the result of running `cat -n` on {WD}/logsift/cli.py:\n" + cat_n(CLI))
r.view(f"{WD}/logsift/model.py", f"Here's the result of running `cat -n` on {WD}/logsift/model.py:\n" + cat_n(MODEL_PY),
       thought="Let me also check the entry model to see the type of `ts`.")
r.run(f"cd {WD} && head -n 3 tests/data/app.jsonl",
      '{"ts": 1714564795.25, "level": "INFO", "msg": "worker started", "pid": 311}\n'
      '{"ts": 1714564800.5, "level": "WARN", "msg": "queue depth 120 above soft limit", "queue": "ingest"}\n'
      '{"ts": 1714564862.0, "level": "ERROR", "msg": "upload failed: timeout after 30s", "attempt": 2}')
DECISIVE_EVENT = len(r.events)
r.edit(f"{WD}/logsift/cli.py",
       "    f.add_argument(\"--until\", type=parse_time, help=\"keep entries before this ISO-8601 time\")\n",
       "    f.add_argument(\"--since\", type=datetime.fromisoformat,\n"
       "                   help=\"keep entries at or after this ISO-8601 time\")\n"
       "    f.add_argument(\"--until\", type=parse_time, help=\"keep entries before this ISO-8601 time\")\n",
       f"The file {WD}/logsift/cli.py has been edited. Here's the result of running `cat -n` on a snippet of "
       f"{WD}/logsift/cli.py:\n    20\t    f.add_argument(\"--level\", choices=LEVELS)\n    21\t    f.add_argument(\"--since\", "
       "type=datetime.fromisoformat,\n    22\t                   help=\"keep entries at or after this ISO-8601 time\")\n"
       "    23\t    f.add_argument(\"--until\", type=parse_time, help=\"keep entries before this ISO-8601 time\")\n"
       "Review the changes and make sure they are as expected. Edit the file again if necessary.",
       thought="I'll add a `--since` argument parsed with `datetime.fromisoformat`, which understands ISO-8601 "
               "strings including the trailing Z on Python 3.11.")
r.edit(f"{WD}/logsift/cli.py",
       "from dataclasses import asdict\n",
       "from dataclasses import asdict\nfrom datetime import datetime\n",
       f"The file {WD}/logsift/cli.py has been edited. Here's the result of running `cat -n` on a snippet of "
       f"{WD}/logsift/cli.py:\n     7\tfrom dataclasses import asdict\n     8\tfrom datetime import datetime\n     9\t\n"
       "Review the changes and make sure they are as expected. Edit the file again if necessary.", thought="")
r.edit(f"{WD}/logsift/cli.py",
       "    if args.until is not None:\n",
       "    if args.since is not None:\n        entries = [e for e in entries if e.ts >= args.since]\n"
       "    if args.until is not None:\n",
       f"The file {WD}/logsift/cli.py has been edited. Here's the result of running `cat -n` on a snippet of "
       f"{WD}/logsift/cli.py:\n    32\t    if args.since is not None:\n    33\t        entries = [e for e in entries if "
       "e.ts >= args.since]\n    34\t    if args.until is not None:\n    35\t        entries = [e for e in entries if e.ts "
       "< args.until]\nReview the changes and make sure they are as expected. Edit the file again if necessary.",
       thought="Now apply the filter in cmd_filter.")
SINCE_TESTS = ('from logsift.cli import main\n\nDATA = "tests/data/app.jsonl"\n\n\n'
               'def test_since_keeps_later_entries(capsys):\n    main(["filter", DATA, "--since", "2024-05-01T12:00:00Z"])\n'
               '    out = capsys.readouterr().out.splitlines()\n    assert len(out) == 2\n    assert "queue depth" in out[0]\n\n\n'
               'def test_since_and_until(capsys):\n    main(["filter", DATA, "--since", "2024-05-01T12:00:00Z", "--until", '
               '"2024-05-01T12:01:00Z"])\n    assert len(capsys.readouterr().out.splitlines()) == 1\n')
r.create(f"{WD}/tests/test_since.py", SINCE_TESTS, thought="Add tests for the new option.")
r.run(f"cd {WD} && python -m pytest -q tests/test_since.py 2>&1 | tail -n 20",
      pytest_fail([("tests/test_since.py::test_since_keeps_later_entries",
                    "TypeError: '>=' not supported between instances of 'float' and 'datetime.datetime'"),
                   ("tests/test_since.py::test_since_and_until",
                    "TypeError: '>=' not supported between instances of 'float' and 'datetime.datetime'")], 0,
                  [tb("test_since_keeps_later_entries", ">       entries = [e for e in entries if e.ts >= args.since]",
                      "TypeError: '>=' not supported between instances of 'float' and 'datetime.datetime'",
                      "logsift/cli.py:33: TypeError")]), code=0,
      thought="Run the new tests.")
r.edit(f"{WD}/logsift/model.py",
       "    ts: float  # seconds since the epoch, UTC\n",
       "    ts: datetime  # aware datetime, UTC\n",
       f"The file {WD}/logsift/model.py has been edited. Here's the result of running `cat -n` on a snippet of "
       f"{WD}/logsift/model.py:\n    13\t@dataclass\n    14\tclass Entry:\n    15\t    ts: datetime  # aware datetime, UTC\n"
       "    16\t    level: str\nReview the changes and make sure they are as expected. Edit the file again if necessary.",
       thought="`Entry.ts` is a float while `--since` is a datetime. Entries should really carry proper datetimes "
               "instead of raw floats, that makes comparisons with parsed ISO times natural. Let me change the model "
               "so that `ts` is an aware datetime.")
r.edit(f"{WD}/logsift/model.py",
       "            entries.append(Entry(ts=float(raw[\"ts\"]), level=",
       "            entries.append(Entry(ts=datetime.fromtimestamp(float(raw[\"ts\"]), tz=timezone.utc), level=",
       f"The file {WD}/logsift/model.py has been edited. Here's the result of running `cat -n` on a snippet of "
       f"{WD}/logsift/model.py:\n    29\t            raw = json.loads(line)\n    30\t            entries.append(Entry(ts="
       "datetime.fromtimestamp(float(raw[\"ts\"]), tz=timezone.utc), level=raw.get(\"level\", \"INFO\"), msg=raw.get(\"msg\", \"\"),\n"
       "Review the changes and make sure they are as expected. Edit the file again if necessary.", thought="")
r.edit(f"{WD}/logsift/model.py", "import json\n", "import json\nfrom datetime import datetime, timezone\n",
       f"The file {WD}/logsift/model.py has been edited. Here's the result of running `cat -n` on a snippet of "
       f"{WD}/logsift/model.py:\n     5\timport json\n     6\tfrom datetime import datetime, timezone\nReview the changes "
       "and make sure they are as expected. Edit the file again if necessary.", thought="")
r.run(f"cd {WD} && python -m pytest -q 2>&1 | tail -n 30",
      pytest_fail([("tests/test_cli.py::test_until", "TypeError: '<' not supported between instances of 'datetime.datetime' and 'float'"),
                   ("tests/test_cli.py::test_json_output", "TypeError: Object of type datetime is not JSON serializable"),
                   ("tests/test_stats.py::test_rate_per_second", "TypeError: unsupported operand type(s) for /: 'datetime.timedelta' and 'int'"),
                   ("tests/test_timeutil.py::test_format_line", "TypeError: 'datetime.datetime' object cannot be interpreted as an integer"),
                   ("tests/test_since.py::test_since_and_until", "TypeError: '<' not supported between instances of 'datetime.datetime' and 'float'")],
                  12,
                  [tb("test_until", ">       entries = [e for e in entries if e.ts < args.until]",
                      "TypeError: '<' not supported between instances of 'datetime.datetime' and 'float'",
                      "logsift/cli.py:35: TypeError"),
                   tb("test_format_line", ">       t = datetime.fromtimestamp(e.ts, tz=timezone.utc).strftime(\"%Y-%m-%d %H:%M:%S\")",
                      "TypeError: 'datetime.datetime' object cannot be interpreted as an integer",
                      "logsift/timeutil.py:19: TypeError")]),
      code=1, thought="Now run the whole suite.", secs=2.2)
r.edit(f"{WD}/logsift/timeutil.py",
       "    t = datetime.fromtimestamp(e.ts, tz=timezone.utc).strftime(\"%Y-%m-%d %H:%M:%S\")\n",
       "    t = e.ts.strftime(\"%Y-%m-%d %H:%M:%S\")\n",
       f"The file {WD}/logsift/timeutil.py has been edited. Here's the result of running `cat -n` on a snippet of "
       f"{WD}/logsift/timeutil.py:\n    17\tdef format_line(e) -> str:\n    18\t    \"\"\"One human-readable line.\"\"\"\n"
       "    19\t    t = e.ts.strftime(\"%Y-%m-%d %H:%M:%S\")\n    20\t    return f\"{t} {e.level:<5} {e.msg}\"\nReview the "
       "changes and make sure they are as expected. Edit the file again if necessary.",
       thought="The other modules still expect floats. format_line can use the datetime directly.")
r.edit(f"{WD}/logsift/cli.py",
       "    f.add_argument(\"--until\", type=parse_time, help=\"keep entries before this ISO-8601 time\")\n",
       "    f.add_argument(\"--until\", type=datetime.fromisoformat, help=\"keep entries before this ISO-8601 time\")\n",
       f"The file {WD}/logsift/cli.py has been edited. Here's the result of running `cat -n` on a snippet of "
       f"{WD}/logsift/cli.py:\n    23\t    f.add_argument(\"--until\", type=datetime.fromisoformat, help=\"keep entries "
       "before this ISO-8601 time\")\nReview the changes and make sure they are as expected. Edit the file again if "
       "necessary.", thought="`--until` must produce a datetime too, for consistency with `--since`.")
r.edit(f"{WD}/logsift/cli.py",
       "        print(json.dumps(asdict(e)) if args.json else format_line(e))\n",
       "        print(json.dumps(asdict(e), default=str) if args.json else format_line(e))\n",
       f"The file {WD}/logsift/cli.py has been edited. Here's the result of running `cat -n` on a snippet of "
       f"{WD}/logsift/cli.py:\n    40\t        print(json.dumps(asdict(e), default=str) if args.json else format_line(e))\n"
       "Review the changes and make sure they are as expected. Edit the file again if necessary.",
       thought="JSON output needs to serialise datetimes.")
r.view(f"{WD}/logsift/stats.py",
       f"Here's the result of running `cat -n` on {WD}/logsift/stats.py:\n" + cat_n(
           '"""Summary statistics."""\n\nfrom collections import Counter\n\n\ndef summarize(entries) -> str:\n'
           '    if not entries:\n        return "no entries"\n    counts = Counter(e.level for e in entries)\n'
           '    span = max(entries[-1].ts - entries[0].ts, 1)\n    rate = len(entries) / span\n'
           '    levels = ", ".join(f"{k}={v}" for k, v in sorted(counts.items()))\n'
           '    return f"{len(entries)} entries ({levels}), {rate:.3f}/s"\n'),
       thought="Now the stats module.")
r.edit(f"{WD}/logsift/stats.py",
       "    span = max(entries[-1].ts - entries[0].ts, 1)\n",
       "    span = max((entries[-1].ts - entries[0].ts).total_seconds(), 1)\n",
       f"The file {WD}/logsift/stats.py has been edited. Here's the result of running `cat -n` on a snippet of "
       f"{WD}/logsift/stats.py:\n    10\t    span = max((entries[-1].ts - entries[0].ts).total_seconds(), 1)\n"
       "Review the changes and make sure they are as expected. Edit the file again if necessary.", thought="")
r.run(f"cd {WD} && python -m pytest -q 2>&1 | tail -n 30",
      pytest_fail([("tests/test_cli.py::test_json_output", "AssertionError: assert '2024-05-01 12:00:00.500000+00:00' == 1714564800.5"),
                   ("tests/test_cli.py::test_until_naive", "TypeError: can't compare offset-naive and offset-aware datetimes"),
                   ("tests/test_buckets.py::test_minute_buckets", "TypeError: unsupported operand type(s) for //: 'datetime.datetime' and 'int'"),
                   ("tests/test_model.py::test_roundtrip_json", "TypeError: Object of type datetime is not JSON serializable")],
                  13,
                  [tb("test_until_naive", ">       entries = [e for e in entries if e.ts < args.until]",
                      "TypeError: can't compare offset-naive and offset-aware datetimes", "logsift/cli.py:35: TypeError"),
                   tb("test_minute_buckets", ">       key = int(e.ts) // width", "TypeError: int() argument must be a string, "
                      "a bytes-like object or a real number, not 'datetime.datetime'", "logsift/buckets.py:12: TypeError")]),
      code=1, thought="", secs=2.1)
r.edit(f"{WD}/tests/test_cli.py",
       "    assert json.loads(out[0])[\"ts\"] == 1714564800.5\n",
       "    assert json.loads(out[0])[\"ts\"] == \"2024-05-01 12:00:00.500000+00:00\"\n",
       f"The file {WD}/tests/test_cli.py has been edited. Here's the result of running `cat -n` on a snippet of "
       f"{WD}/tests/test_cli.py:\n    44\t    assert json.loads(out[0])[\"ts\"] == \"2024-05-01 12:00:00.500000+00:00\"\n"
       "Review the changes and make sure they are as expected. Edit the file again if necessary.",
       thought="test_json_output still expects the old float representation; since entries are datetimes now, update "
               "the expected value.")
r.edit(f"{WD}/logsift/cli.py",
       "type=datetime.fromisoformat, help=\"keep entries before this ISO-8601 time\")\n",
       "type=lambda s: datetime.fromisoformat(s).replace(tzinfo=timezone.utc),\n"
       "                   help=\"keep entries before this ISO-8601 time\")\n",
       f"The file {WD}/logsift/cli.py has been edited. Here's the result of running `cat -n` on a snippet of "
       f"{WD}/logsift/cli.py:\n    23\t    f.add_argument(\"--until\", type=lambda s: datetime.fromisoformat(s).replace("
       "tzinfo=timezone.utc),\n    24\t                   help=\"keep entries before this ISO-8601 time\")\nReview the "
       "changes and make sure they are as expected. Edit the file again if necessary.",
       thought="Naive --until values must be treated as UTC.")
r.edit(f"{WD}/logsift/buckets.py", "    key = int(e.ts) // width\n", "    key = int(e.ts.timestamp()) // width\n",
       None, thought="Fix the bucket computation for datetimes.",
       error=f"ERROR:\nNo replacement was performed, old_str `    key = int(e.ts) // width` did not appear verbatim in "
             f"{WD}/logsift/buckets.py.")
r.view(f"{WD}/logsift/buckets.py",
       f"Here's the result of running `cat -n` on {WD}/logsift/buckets.py:\n" + cat_n(
           '"""Group entries into fixed-width time buckets."""\n\nfrom collections import defaultdict\n\n\n'
           'def bucketize(entries, width=60):\n    """Map bucket start (epoch seconds) -> entries."""\n'
           '    out = defaultdict(list)\n    for e in entries:\n'
           '        key = int(e.ts) // width * width\n        out[key].append(e)\n    return dict(out)\n'),
       thought="")
r.edit(f"{WD}/logsift/buckets.py", "        key = int(e.ts) // width * width\n",
       "        key = int(e.ts.timestamp()) // width * width\n",
       f"The file {WD}/logsift/buckets.py has been edited. Here's the result of running `cat -n` on a snippet of "
       f"{WD}/logsift/buckets.py:\n    10\t        key = int(e.ts.timestamp()) // width * width\nReview the changes and "
       "make sure they are as expected. Edit the file again if necessary.", thought="")
r.run(f"cd {WD} && python -m pytest -q 2>&1 | tail -n 30",
      pytest_fail([("tests/test_cli.py::test_until", "NameError: name 'timezone' is not defined"),
                   ("tests/test_cli.py::test_until_naive", "NameError: name 'timezone' is not defined"),
                   ("tests/test_cli.py::test_until_offset", "NameError: name 'timezone' is not defined"),
                   ("tests/test_since.py::test_since_and_until", "NameError: name 'timezone' is not defined"),
                   ("tests/test_model.py::test_roundtrip_json", "TypeError: Object of type datetime is not JSON serializable")],
                  12,
                  [tb("test_until", ">   f.add_argument(\"--until\", type=lambda s: datetime.fromisoformat(s).replace(tzinfo=timezone.utc),",
                      "NameError: name 'timezone' is not defined", "logsift/cli.py:23: NameError")]),
      code=1, thought="", secs=2.0)
r.edit(f"{WD}/logsift/cli.py", "from datetime import datetime\n", "from datetime import datetime, timezone\n",
       f"The file {WD}/logsift/cli.py has been edited. Here's the result of running `cat -n` on a snippet of "
       f"{WD}/logsift/cli.py:\n     8\tfrom datetime import datetime, timezone\nReview the changes and make sure they are "
       "as expected. Edit the file again if necessary.", thought="Missing import.")
r.run(f"cd {WD} && python -m pytest -q 2>&1 | tail -n 30",
      pytest_fail([("tests/test_cli.py::test_until_offset",
                    "AssertionError: assert 3 == 1"),
                   ("tests/test_model.py::test_roundtrip_json", "TypeError: Object of type datetime is not JSON serializable"),
                   ("tests/test_timeutil.py::test_parse_time_roundtrip",
                    "AssertionError: assert '2024-05-01 12:00:00' == '2024-05-01 12:00:00+00:00'")],
                  14,
                  [tb("test_until_offset", ">       assert len(out) == 1", "AssertionError: assert 3 == 1",
                      "tests/test_cli.py:61: AssertionError")]),
      code=1, thought="", secs=2.0)
r.edit(f"{WD}/tests/test_model.py",
       "    assert json.loads(json.dumps(asdict(entries[0])))[\"ts\"] == entries[0].ts\n",
       "    assert json.loads(json.dumps(asdict(entries[0]), default=str))[\"ts\"] == str(entries[0].ts)\n",
       f"The file {WD}/tests/test_model.py has been edited. Here's the result of running `cat -n` on a snippet of "
       f"{WD}/tests/test_model.py:\n    27\t    assert json.loads(json.dumps(asdict(entries[0]), default=str))[\"ts\"] == "
       "str(entries[0].ts)\nReview the changes and make sure they are as expected. Edit the file again if necessary.",
       thought="test_roundtrip_json also assumes float timestamps; update it to the datetime representation.")
r.edit(f"{WD}/logsift/cli.py",
       "type=lambda s: datetime.fromisoformat(s).replace(tzinfo=timezone.utc),\n",
       "type=lambda s: datetime.fromisoformat(s).astimezone(timezone.utc),\n",
       f"The file {WD}/logsift/cli.py has been edited. Here's the result of running `cat -n` on a snippet of "
       f"{WD}/logsift/cli.py:\n    23\t    f.add_argument(\"--until\", type=lambda s: datetime.fromisoformat(s).astimezone("
       "timezone.utc),\nReview the changes and make sure they are as expected. Edit the file again if necessary.",
       thought="`.replace(tzinfo=...)` discards an explicit offset; use astimezone so `+02:00` is converted instead.")
r.run(f"cd {WD} && python -m pytest -q 2>&1 | tail -n 30",
      pytest_fail([("tests/test_cli.py::test_until_naive", "AssertionError: assert 0 == 2"),
                   ("tests/test_since.py::test_since_naive", "TypeError: can't compare offset-naive and offset-aware datetimes"),
                   ("tests/test_timeutil.py::test_parse_time_roundtrip",
                    "AssertionError: assert '2024-05-01 12:00:00' == '2024-05-01 12:00:00+00:00'"),
                   ("tests/test_stats.py::test_rate_empty_span", "AttributeError: 'float' object has no attribute 'total_seconds'")],
                  14,
                  [tb("test_until_naive", ">       assert len(out) == 2", "AssertionError: assert 0 == 2",
                      "tests/test_cli.py:52: AssertionError")]),
      code=1, thought="", secs=2.0)
r.think("Naive --until values are now interpreted in the container's local time zone by astimezone(). The --since "
        "option has the same naive/aware problem. test_parse_time_roundtrip in test_timeutil expects the old float "
        "semantics of parse_time, and stats' test_rate_empty_span builds entries with float ts. I could convert those "
        "tests to datetimes as well, then make both options share one helper that treats naive values as UTC.")
r.state("error", "RuntimeError: Agent reached maximum iteration in headless mode. Current iteration: 31, max iteration: 31")

doc = {
    "history": r.events,
    "metadata": {
        "agent_class": "CodeActAgent",
        "llm_config": {"model": MODEL, "temperature": 0.0, "native_tool_calling": True},
        "max_iterations": 31,
        "start_time": "2025-05-14 15:02:09",
        "git_commit": "4b1e6c0d2a9f",
        "planted": {"category": "error_accumulation", "step": None,
                    "note": "--since is parsed to a datetime instead of reusing parse_time (epoch seconds); every "
                            "later edit converts more of the code base and the tests to datetimes, failures keep rising"},
    },
}
OUT.mkdir(parents=True, exist_ok=True)
(OUT / "trajectory.json").write_text(json.dumps(doc, indent=1) + "\n")
