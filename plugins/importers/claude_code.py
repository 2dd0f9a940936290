"""Claude Code session JSONL (``~/.claude/projects/<project>/<session>.jsonl``).

Each line is one event: ``{uuid, parentUuid, sessionId, timestamp, type: user|assistant|system|summary,
isSidechain, isMeta, isCompactSummary, cwd, version, gitBranch, message: {...}, toolUseResult}``.
One API response is split over several ``assistant`` lines sharing ``message.id`` (one content
block each, usage repeated): they are merged into one message at the position of its first
line. Tool results come back as ``user`` lines holding ``tool_result`` blocks. Sub-agent
(``Task`` tool) lines sit inline with ``isSidechain: true``; their steps get agent
``sidechain``. One file is one run; steps follow the chat importer's mapping.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from analyzer.errors import ImportFailure
from analyzer.import_messages import imsg, wrap
from analyzer.loading.jsonio import as_text, first_json_char, iter_jsonl
from analyzer.plugin_host.protocols import ImportContext
from analyzer.schema.models import Role, Step, StepKind, Trajectory
from plugins.importers.chat import BadMessages, last_answer, messages_to_steps

_COMMAND_PREFIXES = ("<command-", "<local-command-", "Caveat:", "<system-reminder>")


@dataclass
class _Entry:
    """One merged message with where it came from."""

    message: dict[str, Any]
    line: int
    timestamp: str | None
    sidechain: bool
    meta: dict[str, Any] = field(default_factory=dict)
    usage: Mapping[str, Any] | None = None
    uuid: str | None = None


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _tokens(usage: Mapping[str, Any] | None) -> tuple[int | None, int | None]:
    if not usage:
        return None, None
    tin = _int(usage.get("input_tokens")) + _int(usage.get("cache_creation_input_tokens")) + _int(
        usage.get("cache_read_input_tokens"))
    return tin, _int(usage.get("output_tokens"))


def _block_key(block: Any) -> bytes:
    return orjson.dumps(block, option=orjson.OPT_SORT_KEYS, default=str)


class _Session:
    """Accumulates the lines of one session file."""

    def __init__(self) -> None:
        self.entries: list[_Entry] = []
        self.by_msg_id: dict[str, _Entry] = {}
        self.summaries: list[str] = []
        self.info: dict[str, Any] = {}
        self.model: str | None = None

    def add(self, lineno: int, obj: Any, ctx: ImportContext) -> None:
        if not isinstance(obj, Mapping):
            ctx.error(f"line {lineno}", imsg("claude_not_object"))
            return
        kind = obj.get("type")
        if kind == "summary":
            if isinstance(obj.get("summary"), str):
                self.summaries.append(obj["summary"])
            return
        for key in ("sessionId", "cwd", "version", "gitBranch"):
            if key not in self.info and obj.get(key) is not None:
                self.info[key] = obj[key]
        ts = obj.get("timestamp") if isinstance(obj.get("timestamp"), str) else None
        side = bool(obj.get("isSidechain"))
        uuid = obj.get("uuid") if isinstance(obj.get("uuid"), str) else None
        if kind == "system":
            text = as_text(obj.get("content"))
            meta = {k: obj[k] for k in ("subtype", "level", "compactMetadata") if k in obj}
            self.entries.append(_Entry({"role": "system", "content": text}, lineno, ts, side, meta, uuid=uuid))
            return
        if kind not in ("user", "assistant"):
            return  # other bookkeeping events (file-history snapshots ...) carry no steps
        msg = obj.get("message")
        if not isinstance(msg, Mapping):
            ctx.error(f"line {lineno}", imsg("claude_no_message", kind=str(kind)))
            return
        content = msg.get("content")
        blocks = content if isinstance(content, list) else ([{"type": "text", "text": content}]
                                                            if isinstance(content, str) else [])
        if kind == "assistant":
            if self.model is None and isinstance(msg.get("model"), str) and msg["model"] != "<synthetic>":
                self.model = msg["model"]
            mid = msg.get("id")
            usage = msg.get("usage") if isinstance(msg.get("usage"), Mapping) else None
            if isinstance(mid, str) and mid in self.by_msg_id:
                entry = self.by_msg_id[mid]
                seen = {_block_key(b) for b in entry.message["content"]}
                entry.message["content"].extend(b for b in blocks if _block_key(b) not in seen)
                entry.usage = usage or entry.usage  # later lines carry the final counts
                return
            entry = _Entry({"role": "assistant", "content": list(blocks)}, lineno, ts, side, usage=usage, uuid=uuid)
            if isinstance(mid, str):
                self.by_msg_id[mid] = entry
                entry.meta["message_id"] = mid
            self.entries.append(entry)
            return
        flags: dict[str, Any] = {f: True for f in ("isMeta", "isCompactSummary") if obj.get(f)}
        self.entries.append(_Entry({"role": "user", "content": content}, lineno, ts, side, flags, uuid=uuid))

    def trajectory(self, path: Path) -> Trajectory:
        messages = [e.message for e in self.entries]
        try:
            steps = messages_to_steps(messages)
        except BadMessages as exc:  # content shapes are validated above; this is a defensive net
            raise ImportFailure(wrap("claude_unreadable", exc.message)) from None
        first_step_of: set[int] = set()
        for st in steps:
            entry = self.entries[st.native_index or 0]
            st.native_index = entry.line - 1
            st.native_step_id = entry.uuid or f"line {entry.line}"
            st.timestamp = st.timestamp or entry.timestamp
            step_meta = dict(entry.meta)
            if entry.sidechain:
                step_meta["isSidechain"] = True
                if st.role != Role.TOOL:
                    st.agent = "sidechain"
            if entry.meta.get("isMeta") or entry.meta.get("isCompactSummary"):
                st.kind, st.role = StepKind.SYSTEM, Role.SYSTEM
            st.metadata = {**st.metadata, **step_meta}
            if id(entry) not in first_step_of and entry.usage:
                first_step_of.add(id(entry))
                st.tokens_in, st.tokens_out = _tokens(entry.usage)
        task = next((s.text for s in steps if s.kind == StepKind.USER and s.text.strip()
                     and not s.text.lstrip().startswith(_COMMAND_PREFIXES) and "isSidechain" not in s.metadata), "")
        meta: dict[str, Any] = {k: v for k, v in self.info.items() if k != "sessionId"}
        if self.summaries:
            meta["summaries"] = self.summaries
        meta["sidechain_steps"] = sum(1 for s in steps if s.metadata.get("isSidechain"))
        session = self.info.get("sessionId")
        return Trajectory(
            native_id=str(session) if session is not None else path.stem,
            record="$",
            task=task,
            model=self.model,
            framework="claude-code",
            final_answer=last_answer([s for s in steps if not s.metadata.get("isSidechain")]),
            metadata=meta,
            steps=_reindexed(steps),
        )


def _reindexed(steps: list[Step]) -> list[Step]:
    for i, st in enumerate(steps):
        st.index = i
    return steps


class ClaudeCodeImporter:
    """Reads Claude Code session transcripts (one run per file)."""

    def sniff(self, head: bytes, path: Path) -> bool:
        """Claims JSONL whose first events carry ``sessionId`` with ``parentUuid``/``leafUuid``."""
        if first_json_char(head) != "{":
            return False
        first_line = head.split(b"\n", 1)[0]
        if b'"type"' not in first_line:
            return False
        return b'"sessionId"' in head and (b'"parentUuid"' in head or b'"leafUuid"' in head)

    def read(self, path: Path, ctx: ImportContext) -> Iterator[Trajectory]:
        """Yield the session as one trajectory."""
        session = _Session()
        for lineno, obj in iter_jsonl(path, ctx):
            ctx.guarded(f"line {lineno}", session.add, lineno, obj, ctx)
        if ctx.cancel.cancelled:
            return
        if not session.entries:
            raise ImportFailure(imsg("claude_no_events"))
        t = ctx.guarded("$", session.trajectory, path)
        if t is not None:
            yield t
