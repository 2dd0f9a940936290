"""Generate sample_traces/swe_agent/pageturner__pageturner-88/pageturner__pageturner-88.traj (classic ACI, exit_cost)."""
import json
from pathlib import Path

OUT = Path(__file__).resolve().parents[4] / "sample_traces" / "swe_agent"
IID = "pageturner__pageturner-88"

ISSUE = """Paginator.num_pages is one too high when the item count is an exact multiple of per_page

```python
from pageturner import Paginator
p = Paginator(list(range(20)), per_page=10)
print(p.num_pages)   # 3, expected 2
print(list(p.page_range))  # [1, 2, 3] -> page 3 is empty and p.page(3) raises EmptyPage
```

With 25 items the result is correct (3). Looks like an integer division problem in `num_pages`."""

PAGINATOR = '''"""Split a sequence into numbered pages."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


class InvalidPage(Exception):
    """The requested page number is not valid."""


class EmptyPage(InvalidPage):
    """The requested page holds no items."""


class Paginator:
    """Pages over ``items``, ``per_page`` at a time.

    ``orphans`` items or fewer left for a last page are merged into the previous page.
    """

    def __init__(self, items: Sequence[Any], per_page: int, orphans: int = 0,
                 allow_empty_first_page: bool = True) -> None:
        if per_page <= 0:
            raise ValueError("per_page must be positive")
        self.items = items
        self.per_page = int(per_page)
        self.orphans = int(orphans)
        self.allow_empty_first_page = allow_empty_first_page

    @property
    def count(self) -> int:
        """Number of items over all pages."""
        return len(self.items)

    @property
    def num_pages(self) -> int:
        """Total number of pages."""
        if self.count == 0:
            return 1 if self.allow_empty_first_page else 0
        hits = max(1, self.count - self.orphans)
        return hits // self.per_page + 1

    @property
    def page_range(self) -> range:
        """1-based range of page numbers, for templates."""
        return range(1, self.num_pages + 1)

    def validate_number(self, number: int) -> int:
        """Check a 1-based page number."""
        if number < 1:
            raise InvalidPage("That page number is less than 1")
        if number > self.num_pages:
            raise EmptyPage("That page contains no results")
        return number

    def page(self, number: int) -> list[Any]:
        """Items of page ``number``."""
        number = self.validate_number(number)
        bottom = (number - 1) * self.per_page
        top = bottom + self.per_page
        if top + self.orphans >= self.count:
            top = self.count
        return list(self.items[bottom:top])
'''
LINES = PAGINATOR.rstrip("\n").split("\n")
N = len(LINES)
FILE = "/pageturner/pageturner/paginator.py"


def window(lines, first, last, path=FILE, total=None):
    total = total or len(lines)
    head = f"[File: {path} ({total} lines total)]"
    body = "\n".join(f"{i}:{lines[i - 1]}" for i in range(first, min(last, total) + 1))
    above = f"({first - 1} more lines above)\n" if first > 1 else ""
    below = f"\n({total - last} more lines below)" if last < total else ""
    return f"{head}\n{above}{body}{below}"


def prompt_suffix(open_file="/pageturner/pageturner/paginator.py"):
    return f"\n(Open file: {open_file})\n(Current directory: /pageturner)\nbash-$"


BAD_EDIT = "edit 42:43\n    hits = max(1, self.count - self.orphans)\n    return math.ceil(hits / self.per_page)\nend_of_edit"
SECOND_EDIT = ("edit 42:43\n        hits = max(1, self.count - self.orphans)\n"
               "        return math.ceil(hits / self.per_page)\nend_of_edit")


def lint_error(code, message, new_lines):
    shown = window(new_lines, 34, 54, total=len(new_lines))
    orig = window(LINES, 34, 54)
    return ("Your proposed edit has introduced new syntax error(s). Please read this error message carefully and "
            "then retry editing the file.\n\nERRORS:\n"
            f"- {code} {message}\n\n"
            "This is how your edit would have looked if applied\n-------------------------------------------------\n"
            f"{shown}\n-------------------------------------------------\n\n"
            "This is the original code before your edit\n-------------------------------------------------\n"
            f"{orig}\n-------------------------------------------------\n"
            "Your changes have NOT been applied. Please fix your edit command and try again.\n"
            "You either need to 1) Specify the correct start/end line arguments or 2) Correct your edit code.\n"
            "DO NOT re-run the same failed edit command. Running it again will lead to the same error.")


bad_lines = [*LINES[:41], "    hits = max(1, self.count - self.orphans)", "    return math.ceil(hits / self.per_page)", *LINES[43:]]
second_lines = [*LINES[:41], "        hits = max(1, self.count - self.orphans)", "        return math.ceil(hits / self.per_page)", *LINES[43:]]
ERR_INDENT = lint_error("E999", "IndentationError: unindent does not match any outer indentation level", bad_lines)
ERR_NAME = lint_error("F821", "undefined name 'math'", second_lines)

REPRO = ("from pageturner import Paginator\n\nfor n in (20, 25, 10, 9):\n    p = Paginator(list(range(n)), per_page=10)\n"
         "    print(n, p.num_pages, list(p.page_range))\n")
repro_lines = REPRO.rstrip("\n").split("\n")

entries = []


def add(thought, action, obs, open_file="n/a", t=0.2):
    entries.append({"thought": thought, "action": action, "observation": obs, "open_file": open_file, "t": t})


add("Let's first start by reproducing the results of the issue. The issue includes example code for "
    "reproduction, which we can use. We'll create a new file called `reproduce.py` and paste the example code "
    "into it.", "create reproduce.py", "[File: /pageturner/reproduce.py (1 lines total)]\n1:",
    "/pageturner/reproduce.py")
add("Now let's paste in the example code from the issue, plus a couple of other sizes so we can see the pattern.",
    "edit 1:1\n" + REPRO + "end_of_edit",
    window(repro_lines, 1, len(repro_lines), "/pageturner/reproduce.py") +
    "\nFile updated. Please review the changes and make sure they are correct (correct indentation, no duplicate "
    "lines, etc). Edit the file again if necessary.", "/pageturner/reproduce.py")
add("Now let's run the code to see if we see the same output as the issue.", "python reproduce.py",
    "20 3 [1, 2, 3]\n25 3 [1, 2, 3]\n10 2 [1, 2]\n9 1 [1]", "/pageturner/reproduce.py", 0.4)
add("We are indeed seeing the same output as the issue: 20 items give 3 pages, and 10 items give 2 pages. "
    "Both are exact multiples of per_page. Let's find the paginator implementation.",
    "find_file \"paginator.py\"", "Found 1 matches for \"paginator.py\" in /pageturner:\n/pageturner/pageturner/paginator.py",
    "/pageturner/reproduce.py")
add("It is in `pageturner/paginator.py`. Let's open it.", "open pageturner/paginator.py",
    window(LINES, 1, N), FILE)
add("Let's search for `num_pages` to find the computation.", "search_file \"num_pages\"",
    "Found 3 matches for \"num_pages\" in /pageturner/pageturner/paginator.py:\nLine 38:    def num_pages(self) -> int:\n"
    "Line 48:        return range(1, self.num_pages + 1)\nLine 54:        if number > self.num_pages:\n"
    "End of matches for \"num_pages\" in /pageturner/pageturner/paginator.py", FILE)
add("Let's go to line 37 to see the whole property.", "goto 37", window(LINES, 1, N), FILE)
add("The bug is on line 43: `hits // self.per_page + 1` always adds a page, even when `hits` is an exact multiple "
    "of `per_page`. It should be a ceiling division. I'll use `math.ceil(hits / self.per_page)`.",
    BAD_EDIT, ERR_INDENT, FILE, 0.6)
# --- decisive: retried unchanged after the linter error (failed_recovery), then a loop (repeated_action)
add("The edit failed. Let me try the edit again.", BAD_EDIT, ERR_INDENT, FILE, 0.6)
add("It seems the edit did not go through. I'll issue the same edit command once more.", BAD_EDIT, ERR_INDENT, FILE, 0.6)
add("Let me try again to apply the fix on lines 42-43.", BAD_EDIT, ERR_INDENT, FILE, 0.6)
add("The edit command keeps failing. Let me retry it.", BAD_EDIT, ERR_INDENT, FILE, 0.6)
add("I need to fix the indentation: the body of the property is indented by 8 spaces, not 4. Let me correct the "
    "edit.", SECOND_EDIT, ERR_NAME, FILE, 0.6)
add("The indentation is fixed now but the linter complains about `math`. Let me apply the edit again.",
    SECOND_EDIT, ERR_NAME, FILE, 0.6)
add("Let me try the edit once more.", SECOND_EDIT, ERR_NAME, FILE, 0.6)
add("Retrying the edit.", SECOND_EDIT, ERR_NAME, FILE, 0.6)
add("Let me look at the top of the file again.", "goto 1", window(LINES, 1, N), FILE)
add("I'll apply the ceiling-division fix again.", SECOND_EDIT, ERR_NAME, FILE, 0.6)

SYSTEM = ("SETTING: You are an autonomous programmer, and you're working directly in the command line with a special "
          "interface.\n\nThe special interface consists of a file editor that shows you 100 lines of a file at a time.\n"
          "In addition to typical bash commands, you can also use the following commands to help you navigate and edit "
          "files.\n\nCOMMANDS:\nopen <path> [<line_number>] - opens the file at the given path in the editor\n"
          "goto <line_number> - moves the window to show <line_number>\nscroll_down / scroll_up - move the window by 100 "
          "lines\ncreate <filename> - creates and opens a new file\nsearch_file <search_term> [<file>] - searches for "
          "search_term in file\nfind_file <file_name> [<dir>] - finds all files with the given name in dir\n"
          "edit <start_line>:<end_line>\n<replacement_text>\nend_of_edit - replaces lines start_line through end_line "
          "(inclusive) with the given text in the open file. Python files are checked for syntax errors after the edit.\n"
          "submit - submits your current code and terminates the session\n\nRESPONSE FORMAT:\nYour shell prompt is "
          "formatted as follows:\n(Open file: <path>) <cwd> $\n\nYou need to format your output using two fields; "
          "discussion and command.")
DEMO = ("Here is a demonstration of how to correctly accomplish this task.\nIt is included to show you how to correctly "
        "use the interface.\n--- DEMONSTRATION ---\n(omitted in this sample)\n--- END OF DEMONSTRATION ---")
TASK = ("We're currently solving the following issue within our repository. Here's the issue text:\nISSUE:\n" + ISSUE +
        "\n\nINSTRUCTIONS:\nNow, you're going to solve this issue on your own. Your terminal session has started and "
        "you're in the repository's root directory. You can use any bash commands or the special interface to help "
        "you. Edit all the files you need to and run any checks or tests that you want.\nRemember, YOU CAN ONLY ENTER "
        "ONE COMMAND AT A TIME. You should always wait for feedback after every command.\nWhen you're satisfied with "
        "all of the changes you've made, you can submit your changes to the code base by simply running the submit "
        "command.\n\n(Open file: n/a)\n(Current directory: /pageturner)\nbash-$")

history = [{"role": "system", "content": SYSTEM, "agent": "primary"},
           {"role": "user", "content": DEMO, "agent": "primary", "is_demo": True},
           {"role": "user", "content": TASK, "agent": "primary"}]
trajectory = []
for e in entries:
    response = f"DISCUSSION\n{e['thought']}\n\n```\n{e['action']}\n```"
    state = json.dumps({"open_file": e["open_file"], "working_dir": "/pageturner"})
    trajectory.append({"response": response, "thought": e["thought"], "action": e["action"] + "\n",
                       "observation": e["observation"], "state": state, "execution_time": e["t"],
                       "messages": [{"role": "system", "content": "(history omitted)"}]})
    history.append({"role": "assistant", "content": response, "thought": e["thought"], "action": e["action"] + "\n",
                    "agent": "primary"})
    history.append({"role": "user", "content": e["observation"] + prompt_suffix(e["open_file"]), "agent": "primary"})

# trajectory[] entries of the decisive steps; make_agent_framework_samples.py turns them into canonical
# step indices with the real importer
DECISIVE_ENTRY = 8  # first unchanged retry of the failed edit
LOOP_ENTRY = 10  # third identical edit: clearly a loop
first_retry_action = loop_action = None
doc = {
    "environment": "swe_main",
    "trajectory": trajectory,
    "history": history,
    "info": {
        "exit_status": "exit_cost",
        "submission": None,
        "model_stats": {"total_cost": 41.9, "instance_cost": 3.0412, "tokens_sent": 298871, "tokens_received": 2112,
                        "api_calls": 18},
        "planted": {"category": "failed_recovery", "step": first_retry_action,
                    "note": "linter error on the edit is retried unchanged instead of fixing the indentation",
                    "also": [{"category": "repeated_action", "step": loop_action}]},
    },
    "replay_config": json.dumps({
        "env": {"data_path": "issues/pageturner-88.md", "image_name": "sweagent/swe-agent:latest",
                "repo_path": "pageturner/pageturner"},
        "agent": {"model": {"model_name": "gpt-4-1106-preview", "per_instance_cost_limit": 3.0, "temperature": 0.0,
                            "top_p": 0.95}},
        "problem_statement": {"id": IID},
    }),
}
(OUT / IID).mkdir(parents=True, exist_ok=True)
(OUT / IID / f"{IID}.traj").write_text(json.dumps(doc, indent=2) + "\n")

results = {
    "completed_ids": ["tidyconf__tidyconf-412"],
    "submitted_ids": ["tidyconf__tidyconf-412"],
    "incomplete_ids": [],
    "empty_patch_ids": [IID],
    "resolved_ids": ["tidyconf__tidyconf-412"],
    "unresolved_ids": [],
    "error_ids": [],
    "total_instances": 2,
    "submitted_instances": 1,
    "completed_instances": 1,
    "resolved_instances": 1,
    "unresolved_instances": 0,
    "empty_patch_instances": 1,
    "error_instances": 0,
    "schema_version": 2,
}
(OUT / "results.json").write_text(json.dumps(results, indent=2) + "\n")
