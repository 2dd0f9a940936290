"""The built-in importers state their reasons as message ids (issue 11 item 6).

Every reason the importers give on the hostile fixtures, the committed fuzz reproducers and a
fixed set of mutated samples carries a message id; every id has a Chinese template with the same
placeholders; the English text stays what the importers wrote before (the fuzz and importer
tests compare it); and no ``ctx.error``/``ImportFailure`` in ``plugins/importers`` passes plain
words, except the sites listed in :data:`FREE_TEXT_SITES` (none today).
"""

from __future__ import annotations

import ast
import json
import re
import tempfile
from collections import Counter
from pathlib import Path

import pytest

from analyzer.errors import ImportFailure, LoadError
from analyzer.import_messages import IMPORT_MESSAGES, imsg, inner_message, render_en, wrap
from analyzer.locales import load_error_text, reason_text, zh_CN
from analyzer.messages import Message
from analyzer.plugin_host import PluginHost
from analyzer.plugin_host.protocols import ImportContext
from analyzer.reasons import LOAD_MESSAGES, reason
from bench import fuzzing

ROOT = Path(__file__).resolve().parents[2]
PLACEHOLDER = re.compile(r"(?<!\{)\{(\w+)\}(?!\})")
CJK = re.compile(r"[\u4e00-\u9fff]")

FREE_TEXT_SITES: Counter[str] = Counter()
"""``file -> count`` of the reason sites in ``plugins/importers`` that still pass plain words
(kept visible here: the test fails when the code has more or fewer than listed)."""

FREE_TEXT_REASONS: Counter[str] = Counter()
"""``importer -> count`` of reasons without a message id on the corpus below."""

MUTATION_SEEDS = range(12)
"""Mutated samples per importer (deterministic: :func:`bench.fuzzing.make_input` by seed)."""


def _host() -> PluginHost:
    host = PluginHost()
    host.register_manifest(ROOT / "plugins" / "trajscope.toml")
    return host


HOST = _host()


def test_every_importer_message_has_a_chinese_template_with_the_same_placeholders() -> None:
    assert set(zh_CN.IMPORT) == set(IMPORT_MESSAGES)
    assert not set(IMPORT_MESSAGES) & set(LOAD_MESSAGES), "ids must not shadow the loader's"
    for mid, template in IMPORT_MESSAGES.items():
        chinese = zh_CN.IMPORT[mid]
        assert sorted(PLACEHOLDER.findall(chinese)) == sorted(PLACEHOLDER.findall(template)), mid
        assert CJK.search(chinese), mid  # the prose is translated
        params = {name: f"<{name}>" for name in PLACEHOLDER.findall(template)}
        Message(mid, params).render(IMPORT_MESSAGES)  # a well-formed template (literal braces doubled)
        Message(mid, params).render(zh_CN.IMPORT)


def _corpus() -> list[tuple[str, str, bytes]]:
    """``(importer id, file name, bytes)``: hostile fixtures x every importer, reproducers, mutations."""
    ids = [s.id for s in HOST.importers()]
    out = [(iid, f.name, f.read_bytes()) for f in sorted((ROOT / "tests" / "data" / "hostile").iterdir())
           for iid in ids]
    for f in sorted((ROOT / "tests" / "data" / "fuzz").iterdir()):
        if "__" not in f.name or f.name.endswith(".md"):
            continue
        iid = f.name.split("__", 1)[0]
        suffixes = "".join(Path(f.name.split("__", 1)[1].split("-", 1)[1]).suffixes)
        out.append((iid, "input" + suffixes, f.read_bytes()))
    samples = {k: fuzzing.load_samples(v) for k, v in fuzzing.samples_by_importer(HOST).items()}
    for iid in ids:
        for seed in MUTATION_SEEDS:
            name, data, _what = fuzzing.make_input(seed, samples.get(iid, []), fuzzing.fuzz_name(HOST.importer_spec(iid)))
            out.append((iid, name, data))
    return out


@pytest.fixture(scope="module")
def corpus_errors() -> list[LoadError]:
    errors: list[LoadError] = []
    for iid, name, data in _corpus():
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / name
            path.write_bytes(data)
            outcome, errs, _n = fuzzing.read_one(path, HOST.importer_spec(iid), HOST)
            assert outcome in ("loaded", "reported"), (iid, name, [str(e) for e in errs])
            errors.extend(errs)
    return errors


def test_every_reason_on_the_hostile_corpus_carries_a_message_id(corpus_errors: list[LoadError]) -> None:
    assert len(corpus_errors) > 300  # the corpus does exercise the importers' reasons
    free = Counter(e.importer or "" for e in corpus_errors if e.message is None)
    assert free == FREE_TEXT_REASONS, [str(e) for e in corpus_errors if e.message is None][:20]
    ids = Counter(e.message.id for e in corpus_errors if e.message is not None)
    assert sum(1 for m in ids if m in IMPORT_MESSAGES) >= 40, ids  # most come from the importers' catalogue


def test_the_english_reason_is_the_message_rendered(corpus_errors: list[LoadError]) -> None:
    for e in corpus_errors:
        assert e.message is not None
        assert render_en(e.message) == e.reason, e


def test_every_reason_on_the_corpus_renders_in_chinese(corpus_errors: list[LoadError]) -> None:
    seen = set()
    for e in corpus_errors:
        assert e.message is not None
        if e.message.id in seen:
            continue
        seen.add(e.message.id)
        zh = reason_text(e.message, e.reason, "zh_CN")
        assert CJK.search(zh), (e.message.id, zh)
        template = IMPORT_MESSAGES.get(e.message.id) or LOAD_MESSAGES[e.message.id]
        words = [w for w in re.split(r"\{\w+\}", template) if re.search("[a-z]{4}", w.replace("'", ""))]
        assert not any(w.strip(" ;:()") and w.strip(" ;:()") in zh for w in words if " " in w.strip()), (
            e.message.id, zh)
        assert load_error_text(e, "zh_CN").endswith(zh)


def test_no_plain_words_left_in_the_importers() -> None:
    """A static scan: ``ctx.error(where, "...")`` / ``ImportFailure("...")`` / ``BadMessages("...")``."""
    found: Counter[str] = Counter()
    for path in sorted((ROOT / "plugins" / "importers").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            fn = node.func
            name = fn.attr if isinstance(fn, ast.Attribute) else fn.id if isinstance(fn, ast.Name) else ""
            if name == "error" and len(node.args) == 2:
                arg = node.args[1]
            elif name in ("ImportFailure", "BadMessages", "BadSample", "ValueError") and node.args:
                arg = node.args[0]
            else:
                continue
            if isinstance(arg, ast.Constant | ast.JoinedStr | ast.BinOp) or (
                    isinstance(arg, ast.IfExp) and isinstance(arg.body, ast.Constant | ast.JoinedStr)):
                found[path.name] += 1
    assert found == FREE_TEXT_SITES, found


NEAR_MISS_SITES = 1
"""Near-miss reasons (``looks like X but has no `key```) are importer messages (``near_*``, as
:class:`~analyzer.import_messages.MessageText` so ``near_miss`` keeps returning text); the one
plain-words site left is ``KeyRule.near_miss``'s fallback for a record lacking three or more things."""


def test_the_remaining_plain_words_are_the_near_miss_fallback() -> None:
    files = [*sorted((ROOT / "plugins" / "importers").glob("*.py")), ROOT / "analyzer" / "loading" / "structure.py"]
    sites = sum(len(re.findall(r'f?"looks like ', p.read_text(encoding="utf-8"))) for p in files)
    assert sites == NEAR_MISS_SITES


def test_near_miss_reasons_are_messages_in_both_languages(tmp_path: Path) -> None:
    from analyzer.loading import load

    (tmp_path / "ww.json").write_text(json.dumps({"history": {"a": 1}, "question": "q"}))
    (tmp_path / "none.json").write_text(json.dumps({"history": [], "x": 1}))
    (tmp_path / "atif.json").write_text(json.dumps({"steps": [], "agent": {}, "session_id": "s"}))
    (tmp_path / "line.jsonl").write_text(json.dumps({"mistake_step": 1, "x": 2}) + "\n")
    res = load([tmp_path], cache=None)
    by_file = {Path(e.file).name: e for e in res.errors}
    assert set(by_file) == {"ww.json", "none.json", "atif.json", "line.jsonl"}
    assert by_file["ww.json"].reason.startswith("file looks like Who&When but its `history` is an object, not a list")
    assert by_file["line.jsonl"].reason.startswith("line 1 looks like Who&When but has no `history` (tried: ")
    for e in res.errors:
        assert e.message is not None and e.message.id.startswith("closest_") and render_en(e.message) == e.reason
        zh = load_error_text(e, "zh_CN").rsplit(": ", 1)[-1]
        assert "看起来像" in zh and "已尝试" in zh, zh


def test_files_no_importer_claims_get_message_ids_too(tmp_path: Path) -> None:
    from analyzer.loading import load

    files = [*sorted((ROOT / "tests" / "data" / "hostile").iterdir()),
             *sorted(p for p in (ROOT / "tests" / "data" / "fuzz").iterdir() if "__" in p.name)]
    (tmp_path / "utf16.json").write_bytes('{"a": 1}'.encode("utf-16"))
    (tmp_path / "latin.jsonl").write_bytes(b'{"a": "\xe9t\xe9"}\n')
    (tmp_path / "page.json").write_bytes(b"%PDF-1.4 ...")
    res = load([*files, *sorted(tmp_path.iterdir())])
    assert res.errors and all(e.message is not None for e in res.errors), [str(e) for e in res.errors if not e.message]
    ids = {e.message.id for e in res.errors if e.message is not None}
    assert {"binary_png", "binary_pdf", "text_utf16", "text_nul"} <= ids, ids
    for e in res.errors:
        assert e.message is not None and render_en(e.message) == e.reason
        assert CJK.search(load_error_text(e, "zh_CN").rsplit(": ", 1)[-1]), e


def test_a_wrapped_reason_renders_its_inner_message_in_the_language_too() -> None:
    inner = reason("json_invalid", where="line 3", error="unexpected character")
    m = wrap("inspect_sample_skipped", inner)
    assert render_en(m) == "line 3 is not valid JSON (unexpected character); sample skipped"
    assert inner_message(m) == inner
    zh = reason_text(m, render_en(m), "zh_CN")
    assert zh == "第 3 行不是有效的 JSON（unexpected character）；已跳过该样本"
    own = wrap("inspect_sample_skipped", "a third party's words")  # plain words inside: kept as written
    assert inner_message(own) is None
    assert reason_text(own, render_en(own), "zh_CN") == "a third party's words；已跳过该样本"


def test_context_and_failure_take_a_message_or_plain_words(tmp_path: Path) -> None:
    ctx = ImportContext(path=tmp_path / "x.json", importer_id="third_party")
    ctx.error("line 2", "my own words")
    ctx.error("line 3", imsg("otel_not_export"))
    assert ctx.errors == [("line 2", "my own words"), ("line 3", 'not a span export: expected an OTLP '
                          '{"resourceSpans": [...]} document, a list of spans, or a TRAIL trace with '
                          "'spans'/'child_spans'")]
    assert ctx.message_of(0) is None and ctx.message_of(1) == Message("otel_not_export", {})
    exc = ImportFailure(imsg("zip_member_truncated", got=3, size=10), record="samples/1.json")
    assert exc.reason == "member data is truncated (3 of 10 bytes)" == str(exc) and exc.record == "samples/1.json"
    assert ImportFailure("plain").message is None
    with pytest.raises(KeyError):
        imsg("no_such_id")


def test_version_error_keeps_its_english_text() -> None:
    from plugins.importers.generic_flat import version_error, version_message

    assert version_error("9.0") == "unsupported schema_version '9.0' (this TrajScope reads 1.x)"
    assert reason_text(version_message("9.0"), version_error("9.0"), "zh_CN").startswith("不支持的 schema_version '9.0'")
