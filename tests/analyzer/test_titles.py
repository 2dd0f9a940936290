"""Run titles and source names for the runs table."""

from __future__ import annotations

import polars as pl

from analyzer.frames.titles import TITLE_CHARS, run_title, source_names, with_titles


def test_title_is_the_first_wordy_line_of_the_task() -> None:
    assert run_title("<pr_description>\nConsider the following PR description:\nFix it", "x", "abc") == \
        "Consider the following PR description:"
    assert run_title("\n\n  create TODO app   by Next.js \nThanks", None, "abc") == "create TODO app by Next.js"
    long = "word " * 60
    assert len(run_title(long, None, "t")) == TITLE_CHARS and run_title(long, None, "t").endswith("…")


def test_title_falls_back_to_the_source_id_then_the_run_id() -> None:
    assert run_title("", "django__django-11099", "0123456789abcdef") == "django__django-11099"
    assert run_title(None, None, "0123456789abcdef") == "0123456789ab"
    assert run_title("```\n---\n", "sess-1", "x") == "sess-1"


def test_source_names_are_relative_to_the_shared_folder() -> None:
    paths = ["/data/job/a__1/agent/trajectory.json", "/data/job/b__2/agent/trajectory.json", None]
    assert source_names(paths) == ["a__1/agent/trajectory.json", "b__2/agent/trajectory.json", None]
    assert source_names(["/data/x/run.jsonl", "/data/x/run.jsonl"]) == ["run.jsonl", "run.jsonl"]


def test_with_titles_adds_both_columns() -> None:
    frame = pl.DataFrame({"trace_id": ["t1", "t2"], "native_id": [None, "n2"], "task": ["Do A\nmore", None],
                          "source_file": ["/a/b/one.json", "/a/c/two.json"]})
    out = with_titles(frame)
    assert out["title"].to_list() == ["Do A", "n2"]
    assert out["source_name"].to_list() == ["b/one.json", "c/two.json"]
    assert with_titles(frame.head(0)).columns[-2:] == ["title", "source_name"]
