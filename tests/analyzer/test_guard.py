"""Unit tests of the read guards: nesting cuts, UTF-8 repair, capped inflation, the caps in settings."""

from __future__ import annotations

import io
import zlib

import orjson
import pytest

from analyzer import guard
from analyzer.errors import ImportFailure
from analyzer.settings import LoadLimits, Settings, load_settings, save_settings


def _nest(n: int) -> object:
    value: object = 1
    for _ in range(n):
        value = {"a": [value]} if n % 2 else [value]
    return value


def test_dumps_cuts_nesting_past_the_writer_and_counts_it() -> None:
    deep = _nest(600)
    with pytest.raises(TypeError):
        orjson.dumps(deep)
    with guard.guarding(LoadLimits(max_depth=50)) as g:
        text = guard.dumps({"meta": deep})
    assert "[nesting cut at depth 50]" in text
    assert g.nesting_cuts == 1
    assert g.notes() == ["1 value nested deeper than 50 levels cut and marked '[nesting cut at depth 50]' "
                         "(cap settings.json: load_limits.max_depth)"]
    parsed = orjson.loads(text)
    depth = 0
    while isinstance(parsed, (dict, list)):
        parsed = parsed["meta"] if isinstance(parsed, dict) and "meta" in parsed else \
            (parsed["a"] if isinstance(parsed, dict) else parsed[0])
        depth += 1
    assert depth <= 50


def test_shallow_values_are_written_unchanged_and_big_ints_become_text() -> None:
    assert guard.dumps({"a": [1, "x", None]}) == '{"a":[1,"x",null]}'
    assert guard.dumps({"n": 2**70}) == '{"n":"1180591620717411303424"}'


def test_limit_depth_only_copies_values_the_writer_refuses() -> None:
    shallow = {"a": list(range(300))}
    assert guard.limit_depth(shallow, 10_000) is shallow
    cut = guard.limit_depth(_nest(400), 10_000)
    orjson.dumps(cut)  # writable now


def test_decode_utf8_replaces_and_counts() -> None:
    with guard.guarding() as g:
        assert guard.decode_utf8(b"\xef\xbb\xbfcaf\xe9 ok \xff\xfe") == "caf\ufffd ok \ufffd\ufffd"
    assert g.utf8_replaced == 3
    assert guard.decode_utf8(b"plain") == "plain"  # outside a scope: nothing counted, no error


@pytest.mark.parametrize("size", [1, 2, 3, 7, 64])
def test_utf8_repair_reader_keeps_characters_split_across_reads(size: int) -> None:
    raw = "h\u00e9\u20ac\U0001f600 x".encode() + b"\xff" + "\u00e9".encode()
    reader = guard.Utf8RepairReader(io.BytesIO(raw))
    with guard.guarding() as g:
        out = b""
        while chunk := reader.read(size):
            out += chunk
    assert out.decode() == "h\u00e9\u20ac\U0001f600 x\ufffd\u00e9"
    assert g.utf8_replaced == 1


def _stream(data: bytes) -> io.BufferedReader:
    class Inflating(io.RawIOBase):
        def __init__(self) -> None:
            self.d = zlib.decompressobj()
            self.src = io.BytesIO(zlib.compress(data, 9))

        def readable(self) -> bool:
            return True

        def readinto(self, b: bytearray) -> int:  # type: ignore[override]
            out = self.d.decompress(self.src.read(4096), len(b)) if not self.d.unconsumed_tail else \
                self.d.decompress(self.d.unconsumed_tail, len(b))
            b[: len(out)] = out
            return len(out)

    return io.BufferedReader(Inflating())


def test_inflate_capped_refuses_past_the_size_cap_while_inflating() -> None:
    data = b"x" * (5 << 20)
    with guard.guarding(LoadLimits(max_member_bytes=2 << 20)), pytest.raises(ImportFailure) as exc:
        guard.inflate_capped(_stream(data).read, 10 << 20, "m.json")
    assert exc.value.record == "m.json"
    assert "inflates past 2 MB" in exc.value.reason and "load_limits.max_member_bytes" in exc.value.reason


def test_inflate_capped_refuses_a_bomb_by_ratio_past_the_floor() -> None:
    data = b"\x00" * (20 << 20)
    compressed = len(zlib.compress(data, 9))
    with guard.guarding(LoadLimits(ratio_floor_bytes=4 << 20, max_inflate_ratio=100)):
        with pytest.raises(ImportFailure) as exc:
            guard.inflate_capped(_stream(data).read, compressed, "bomb.json")
        assert guard.inflate_capped(_stream(b"\x00" * (3 << 20)).read, 100, "small.json") == b"\x00" * (3 << 20)
    assert "load_limits.max_inflate_ratio" in exc.value.reason


def test_inflate_capped_stops_one_byte_past_the_declared_size() -> None:
    got = guard.inflate_capped(_stream(b"y" * 5000).read, 5000, "m", declared_bytes=100)
    assert len(got) == 101


def test_load_limits_round_trip_through_settings(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "settings.json"
    save_settings(Settings(load_limits=LoadLimits(max_depth=120, max_inflate_ratio=50.0)), path)
    got = load_settings(path).load_limits
    assert got.max_depth == 120 and got.max_inflate_ratio == 50.0
    assert got.max_member_bytes == LoadLimits().max_member_bytes
    assert LoadLimits.from_json({"max_depth": "deep", "max_members": 2.5, "max_file_bytes": True}) == LoadLimits()
    assert "load_limits" not in Settings().to_json()  # defaults are not written out
