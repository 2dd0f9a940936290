"""Generate sample_traces/swe_agent/tidyconf__tidyconf-412/tidyconf__tidyconf-412.traj (SWE-agent 1.x, function calling)."""
import json
from pathlib import Path

OUT = Path(__file__).resolve().parents[4] / "sample_traces" / "swe_agent"
IID = "tidyconf__tidyconf-412"

ISSUE = """parse_duration() returns wrong values for hours

`tidyconf.durations.parse_duration` is used for `timeout = "1h30m"` style settings, but the hour unit is
off by a factor of 60:

```python
>>> from tidyconf.durations import parse_duration
>>> parse_duration("1h30m")
1860.0
>>> parse_duration("2h")
120.0
```

Expected `5400.0` and `7200.0`. Minutes, seconds and days look right. This breaks every config that uses
hour-based timeouts (our workers get killed after two minutes instead of two hours)."""

SYSTEM = "You are a helpful assistant that can interact with a computer to solve tasks."

INSTANCE = f"""<uploaded_files>
/testbed
</uploaded_files>
I've uploaded a python code repository in the directory /testbed. Consider the following PR description:

<pr_description>
{ISSUE}
</pr_description>

Can you help me implement the necessary changes to the repository so that the requirements specified in the <pr_description> are met?
I've already taken care of all changes to any of the test files described in the <pr_description>. This means you DON'T have to modify the testing logic or any of the tests in any way!
Your task is to make the minimal changes to non-tests files in the /testbed directory to ensure the <pr_description> is satisfied.
Follow these steps to resolve the issue:
1. As a first step, it might be a good idea to find and read code relevant to the <pr_description>
2. Create a script to reproduce the error and execute it with `python <filename.py>` using the bash tool, to confirm the error
3. Edit the source code of the repo to resolve the issue
4. Rerun your reproduce script and confirm that the error is fixed!
5. Think about edgecases and make sure your fix handles them as well
Your thinking should be thorough and so it's fine if it's very long."""

DURATIONS = '''"""Human-friendly duration strings ("1h30m", "45s", "2d") for config values."""

from __future__ import annotations

import re

_UNITS = {
    "s": 1,
    "m": 60,
    "h": 60,
    "d": 86400,
    "w": 604800,
}

_PART = re.compile(r"(\\d+(?:\\.\\d+)?)([smhdw])")


def parse_duration(text: str) -> float:
    """Parse a duration such as ``"1h30m"`` into seconds.

    Raises:
        ValueError: if the text is empty or not a sequence of <number><unit> parts.
    """
    text = text.strip().lower()
    if not text:
        raise ValueError("empty duration")
    total = 0.0
    pos = 0
    for match in _PART.finditer(text):
        if match.start() != pos:
            raise ValueError(f"invalid duration: {text!r}")
        total += float(match.group(1)) * _UNITS[match.group(2)]
        pos = match.end()
    if pos != len(text):
        raise ValueError(f"invalid duration: {text!r}")
    return total


def format_duration(seconds: float) -> str:
    """Inverse of :func:`parse_duration` for whole seconds."""
    seconds = int(seconds)
    if seconds == 0:
        return "0s"
    parts = []
    for unit in ("w", "d", "h", "m", "s"):
        size = _UNITS[unit]
        count, seconds = divmod(seconds, size)
        if count:
            parts.append(f"{count}{unit}")
    return "".join(parts)
'''


def cat_n(text: str, start: int = 1, end: int | None = None) -> str:
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines = lines[:-1]
    end = end or len(lines)
    return "\n".join(f"{i:6}\t{lines[i - 1]}" for i in range(start, end + 1))


REPRO = '''from tidyconf.durations import parse_duration, format_duration

for text, expected in [("1h30m", 5400.0), ("2h", 7200.0), ("45s", 45.0), ("1d2h", 93600.0)]:
    got = parse_duration(text)
    print(f"{text!r:10} -> {got!r:10} expected {expected!r:10} {'OK' if got == expected else 'WRONG'}")
print("format_duration(5400) =", format_duration(5400))
'''

FIXED = DURATIONS.replace('    "h": 60,\n', '    "h": 3600,\n')

DIFF = '''diff --git a/tidyconf/durations.py b/tidyconf/durations.py
index 3b1f0a2..9c4e7d1 100644
--- a/tidyconf/durations.py
+++ b/tidyconf/durations.py
@@ -7,7 +7,7 @@ import re
 _UNITS = {
     "s": 1,
     "m": 60,
-    "h": 60,
+    "h": 3600,
     "d": 86400,
     "w": 604800,
 }
'''

steps = []  # (thought, function, args, action_string, observation, exec_time)


def add(thought, fn, args, action, obs, t=0.3):
    steps.append((thought, fn, args, action, obs, t))


add("I'll start by exploring the repository structure to find the code that parses durations.",
    "bash", {"command": "find /testbed -type f -name '*.py' | grep -v '/\\.' | sort"},
    "find /testbed -type f -name '*.py' | grep -v '/\\.' | sort",
    "\n".join(["/testbed/docs/conf.py", "/testbed/setup.py", "/testbed/tests/__init__.py",
               "/testbed/tests/conftest.py", "/testbed/tests/test_config.py", "/testbed/tests/test_durations.py",
               "/testbed/tests/test_env.py", "/testbed/tidyconf/__init__.py", "/testbed/tidyconf/config.py",
               "/testbed/tidyconf/durations.py", "/testbed/tidyconf/env.py", "/testbed/tidyconf/errors.py",
               "/testbed/tidyconf/sizes.py"]), 0.21)
add("The duration parsing lives in `tidyconf/durations.py`. Let me look at it.",
    "str_replace_editor", {"command": "view", "path": "/testbed/tidyconf/durations.py"},
    "str_replace_editor view /testbed/tidyconf/durations.py",
    "Here's the result of running `cat -n` on /testbed/tidyconf/durations.py:\n" + cat_n(DURATIONS), 0.18)
add("I can already see a suspicious entry in `_UNITS`: `\"h\": 60`. An hour is 3600 seconds, so `1h30m` becomes "
    "60 + 1800 = 1860, which matches the report exactly. Before changing anything, let me write a small script "
    "that reproduces the problem.",
    "str_replace_editor", {"command": "create", "path": "/testbed/reproduce.py", "file_text": REPRO},
    "str_replace_editor create /testbed/reproduce.py --file_text '" + REPRO + "'",
    "File created successfully at: /testbed/reproduce.py", 0.12)
add("", "bash", {"command": "cd /testbed && python reproduce.py"}, "cd /testbed && python reproduce.py",
    "'1h30m'    -> 1860.0     expected 5400.0     WRONG\n"
    "'2h'       -> 120.0      expected 7200.0     WRONG\n"
    "'45s'      -> 45.0       expected 45.0       OK\n"
    "'1d2h'     -> 86520.0    expected 93600.0    WRONG\n"
    "format_duration(5400) = 90h", 0.41)
add("The script confirms the bug, and `format_duration(5400)` prints `90h` because it divides by the same "
    "`_UNITS` table. The root cause is the `\"h\": 60` entry; an hour is 3600 seconds. Fixing the table fixes "
    "both functions.",
    "str_replace_editor", {"command": "str_replace", "path": "/testbed/tidyconf/durations.py",
                           "old_str": '    "h": 60,', "new_str": '    "h": 3600,'},
    "str_replace_editor str_replace /testbed/tidyconf/durations.py   --old_str '    \"h\": 60,' --new_str '    \"h\": 3600,'",
    "The file /testbed/tidyconf/durations.py has been edited. Here's the result of running `cat -n` on a snippet "
    "of /testbed/tidyconf/durations.py:\n" + cat_n(FIXED, 5, 15) + "\nReview the changes and make sure they are "
    "as expected. Edit the file again if necessary.", 0.15)
add("Now let me rerun the reproduction script.", "bash", {"command": "cd /testbed && python reproduce.py"},
    "cd /testbed && python reproduce.py",
    "'1h30m'    -> 5400.0     expected 5400.0     OK\n"
    "'2h'       -> 7200.0     expected 7200.0     OK\n"
    "'45s'      -> 45.0       expected 45.0       OK\n"
    "'1d2h'     -> 93600.0    expected 93600.0    OK\n"
    "format_duration(5400) = 1h30m", 0.39)
add("All parse cases are correct now. I was unsure about `format_duration` earlier; let me check it directly "
    "with values whose hour part matters, since it shares the same `_UNITS` table.",
    "bash", {"command": "cd /testbed && python -c \"from tidyconf.durations import format_duration as f; "
                        "print(f(5400), f(7200), f(93600), f(59), f(604800 + 3661))\""},
    "cd /testbed && python -c \"from tidyconf.durations import format_duration as f; print(f(5400), f(7200), "
    "f(93600), f(59), f(604800 + 3661))\"",
    "1h30m 2h 1d2h 59s 1w1h1m1s", 0.33)
add("The formatter agrees with the parser now (`5400` -> `1h30m` instead of `90h`). Let me check git to make "
    "sure only the intended file changed.",
    "bash", {"command": "cd /testbed && git status && git diff"}, "cd /testbed && git status && git diff",
    "On branch main\nChanges not staged for commit:\n  (use \"git add <file>...\" to update what will be committed)\n"
    "  (use \"git restore <file>...\" to discard changes in working directory)\n\tmodified:   tidyconf/durations.py\n\n"
    "Untracked files:\n  (use \"git add <file>...\" to include in what will be committed)\n\treproduce.py\n\n"
    "no changes added to commit (use \"git add\" and/or \"git commit -a\")\n" + DIFF, 0.09)
add("Only `durations.py` changed. Let me see where `parse_duration` is used so I know which tests to run.",
    "bash", {"command": "grep -rn 'parse_duration\\|format_duration' /testbed --include='*.py'"},
    "grep -rn 'parse_duration\\|format_duration' /testbed --include='*.py'",
    "/testbed/reproduce.py:1:from tidyconf.durations import parse_duration, format_duration\n"
    "/testbed/reproduce.py:4:    got = parse_duration(text)\n"
    "/testbed/reproduce.py:6:print(\"format_duration(5400) =\", format_duration(5400))\n"
    "/testbed/tidyconf/config.py:14:from .durations import parse_duration\n"
    "/testbed/tidyconf/config.py:88:            return parse_duration(raw)\n"
    "/testbed/tidyconf/durations.py:17:def parse_duration(text: str) -> float:\n"
    "/testbed/tidyconf/durations.py:38:def format_duration(seconds: float) -> str:\n"
    "/testbed/tidyconf/durations.py:39:    \"\"\"Inverse of :func:`parse_duration` for whole seconds.\"\"\"\n"
    "/testbed/tests/test_durations.py:3:from tidyconf.durations import format_duration, parse_duration\n"
    "/testbed/tests/test_durations.py:8:    assert parse_duration(\"45s\") == 45\n"
    "/testbed/tests/test_durations.py:12:    assert parse_duration(\"1h30m\") == 5400\n"
    "/testbed/tests/test_durations.py:27:    assert format_duration(93600) == \"1d2h\"\n"
    "/testbed/tests/test_config.py:41:    assert cfg.get_duration(\"worker.timeout\") == 7200", 0.11)
add("", "bash", {"command": "cd /testbed && python -m pytest tests/test_durations.py tests/test_config.py -q"},
    "cd /testbed && python -m pytest tests/test_durations.py tests/test_config.py -q",
    "...................                                                      [100%]\n19 passed in 0.08s", 1.84)
add("Both the duration tests and the config tests that use hour-based timeouts pass. Let me run the whole "
    "suite to make sure nothing else depends on the old value.",
    "bash", {"command": "cd /testbed && python -m pytest -q"}, "cd /testbed && python -m pytest -q",
    "..............................................                           [100%]\n46 passed in 0.31s", 2.10)
add("Everything passes. Edge cases: fractional hours (`1.5h`), upper case (`2H`) and invalid input should "
    "behave sensibly.",
    "bash", {"command": "cd /testbed && python -c \"from tidyconf.durations import parse_duration as p; "
                        "print(p('1.5h'), p('2H'), p(' 1w '));\nimport traceback\ntry:\n    p('1x')\n"
                        "except ValueError as e:\n    print('rejected:', e)\""},
    "cd /testbed && python -c \"from tidyconf.durations import parse_duration as p; print(p('1.5h'), p('2H'), "
    "p(' 1w '));\nimport traceback\ntry:\n    p('1x')\nexcept ValueError as e:\n    print('rejected:', e)\"",
    "5400.0 7200.0 604800.0\nrejected: invalid duration: '1x'", 0.29)
add("Edge cases behave correctly. I'll remove the reproduction script and submit.",
    "bash", {"command": "rm /testbed/reproduce.py"}, "rm /testbed/reproduce.py",
    "Your command ran successfully and did not produce any output.", 0.05)
add("", "submit", {}, "submit",
    "Thank you for your work on this issue. Please carefully follow the steps below to help review your changes.\n\n"
    "1. If you made any changes to your code after running the reproduction script, please run the reproduction "
    "script again.\n  If the reproduction script is failing, please revisit your changes and make sure they are "
    "correct.\n  If you have already removed your reproduction script, please ignore this step.\n2. Remove your "
    "reproduction script (if you haven't done so already).\n3. If you have modified any TEST files, please revert "
    "them to the state they had before you started fixing the issue.\n  You can do this with `git checkout -- "
    "/path/to/test/file.py`. Use below <diff> to find the files you need to revert.\n4. Run the submit command "
    "again to confirm.\n\nHere is a list of all of your changes:\n\n<diff>\n" + DIFF + "</diff>", 0.21)
add("I have already removed the reproduction script and did not touch any tests. Submitting again to confirm.",
    "submit", {}, "submit", DIFF, 0.19)

trajectory = []
history = [{"role": "system", "content": SYSTEM, "agent": "main", "message_type": "system_prompt"},
           {"role": "user", "content": [{"type": "text", "text": INSTANCE}], "agent": "main", "message_type": "observation"}]
state_dir = {"working_dir": "/testbed"}
for n, (thought, fn, args, action, obs, t) in enumerate(steps):
    call_id = f"toolu_01{n:02d}" + "XyZ9aBcD4eFgH7iJkLmN"[: 18]
    response = thought
    trajectory.append({
        "action": action,
        "observation": obs,
        "response": response,
        "thought": thought,
        "execution_time": t,
        "state": {"working_dir": "/testbed", "open_file": "n/a"} if n else {"working_dir": "/testbed"},
        "query": [{"role": "system", "content": SYSTEM}],
        "extra_info": {},
    })
    history.append({"role": "assistant", "content": thought, "thought": thought, "action": action, "agent": "main",
                    "tool_calls": [{"index": 0, "function": {"arguments": json.dumps(args), "name": fn},
                                    "id": call_id, "type": "function"}],
                    "message_type": "action"})
    history.append({"role": "tool", "content": [{"type": "text", "text": "OBSERVATION:\n" + obs}], "agent": "main",
                    "message_type": "observation", "tool_call_ids": [call_id]})

doc = {
    "trajectory": trajectory,
    "history": history,
    "info": {
        "swe_agent_hash": "0f3c1e2",
        "swe_agent_version": "1.0.1",
        "swe_rex_version": "1.2.0",
        "swe_rex_hash": "unavailable",
        "submission": DIFF,
        "exit_status": "submitted",
        "edited_files30": "[File: tidyconf/durations.py]\n[7 lines above omitted]\n    10:     \"h\": 3600,",
        "model_stats": {"instance_cost": 0.2871, "tokens_sent": 81234, "tokens_received": 2310, "api_calls": 14},
    },
    "replay_config": json.dumps({
        "env": {"deployment": {"image": "python:3.11", "type": "docker"}, "repo": {"path": "/testbed", "type": "preexisting"}},
        "agent": {"name": "main", "model": {"name": "claude-3-5-sonnet-20241022", "per_instance_cost_limit": 3.0,
                                               "temperature": 0.0, "top_p": 1.0}},
        "problem_statement": {"text": ISSUE, "type": "text", "id": IID},
        "output_dir": "trajectories/samples/default__claude-3-5-sonnet-20241022__t-0.00__p-1.00__c-3.00",
    }),
    "environment": "main",
}
(OUT / IID).mkdir(parents=True, exist_ok=True)
(OUT / IID / f"{IID}.traj").write_text(json.dumps(doc, indent=2) + "\n")
