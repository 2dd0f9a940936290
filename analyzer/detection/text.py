"""Text helpers shared by detectors and attribution features.

Everything here works on plain strings and the canonical :class:`~analyzer.schema.models.Step`
(kinds and roles), never on agent names or a dataset's conventions, so it applies to every
importer's output.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from functools import lru_cache

from analyzer.schema.models import AGENT_DECISION_KINDS, Role, Step, StepKind

_WORD_RE = re.compile(r"[A-Za-z][A-Za-z0-9_']+")
_NUM_RE = re.compile(r"(?<![\w.])[-+]?\$?\d[\d,]*(?:\.\d+)?%?")
_CODE_RE = re.compile(r"```[\w+-]*\s*\n?(.*?)```", re.DOTALL)
_WS_RE = re.compile(r"\s+")
_CAP_RE = re.compile(r"\b[A-Z][a-zA-Z0-9'&.-]+(?:[ \t]+(?:(?:of|the|de|la|and|&)[ \t]+)?[A-Z][a-zA-Z0-9'&.-]+)*")
_QUOTED_RE = re.compile(r"[\"“]([^\"”\n]{3,80})[\"”]")

STOPWORDS = frozenset(["a", "about", "above", "after", "again", "against", "all", "also", "am", "an", "and", "any", "are", "as", "at", "be", "because", "been", "before", "being", "below", "between", "both", "but", "by", "can", "could", "did", "do", "does", "doing", "down", "during", "each", "few", "for", "from", "further", "had", "has", "have", "having", "he", "her", "here", "hers", "herself", "him", "himself", "his", "how", "i", "if", "in", "into", "is", "it", "its", "itself", "just", "let", "lets", "let's", "me", "more", "most", "my", "myself", "no", "nor", "not", "now", "of", "off", "on", "once", "only", "or", "other", "our", "ours", "ourselves", "out", "over", "own", "same", "she", "should", "so", "some", "such", "than", "that", "the", "their", "theirs", "them", "themselves", "then", "there", "these", "they", "this", "those", "through", "to", "too", "under", "until", "up", "very", "was", "we", "were", "what", "when", "where", "which", "while", "who", "whom", "why", "will", "with", "would", "you", "your", "yours", "yourself", "yourselves", "please", "need", "needs", "using", "use", "used", "will", "shall", "may", "might", "must", "one", "two", "get", "got", "make", "made", "like", "well", "also", "next", "first", "step", "steps", "task", "following", "provided", "based", "sure", "okay", "here's", "we'll", "i'll", "let's", "it's", "that's"])

ASSUMPTION_RE = re.compile(
    r"\b(assum(?:e|es|ed|ing|ption|ptions)|hypothetical(?:ly)?|for (?:example|instance|illustration)|"
    r"example (?:data|dataset|values?)|placeholder|dummy|mock(?:ed|up)?|simulat(?:e|ed|ing|ion)|"
    r"synthetic|sample (?:data|dataset|values?)|made[- ]up|fictional|fictitious|let's say|suppose|"
    r"pretend|illustrative|approximat(?:e|ely)|rough(?:ly)? estimate|typical(?:ly)?|generic|"
    r"(?:take|treat|interpret|read) (?:them|it|this|these|those|the values?) as|presumably|probably)\b",
    re.IGNORECASE,
)
"""Cues that an agent works from assumed, invented or placeholder data."""

VERIFY_RE = re.compile(
    r"\b(verified|confirmed|validated|double[- ]checked|is (?:correct|accurate)|are (?:correct|accurate)|"
    r"looks (?:correct|good|accurate)|everything (?:is|looks) (?:correct|accurate|good)|"
    r"(?:correct|accurate) and (?:complete|verified))\b",
    re.IGNORECASE,
)
"""Claims that something was checked."""

DONE_RE = re.compile(
    r"(\bTERMINATE\b|\btask (?:is )?(?:now )?(?:complete|completed|done|finished|solved)\b|"
    r"\bsuccessfully (?:completed|solved|finished|fixed|resolved)\b|\bfinal answer\b|"
    r"\bwe (?:have|'ve) (?:completed|solved|finished|resolved)\b|\bsubmit(?:ted|ting)?\b|"
    r"\ball (?:tests|checks) pass(?:ed)?\b|\bissue (?:is )?(?:now )?(?:fixed|resolved)\b|"
    r"\bconclude the (?:task|conversation)\b|\bend the conversation\b|"
    r"\b(?:is|are|has been|have been) (?:now )?(?:fixed|resolved|complete|completed|done|"
    r"working\b(?!\s+(?:on|to|towards|toward|through|with|in|at|hard)\b))\b|"
    r"\b(?:all )?(?:\d+ )?tests? (?:now )?pass(?:ed|es)?\b|\bfix is (?:complete|in place|done)\b)",
    re.IGNORECASE,
)
"""Claims that the task is done, or termination/submission."""

RETRIEVAL_CLAIM_RE = re.compile(
    r"\b(retrieved|found|according to|results? (?:show|indicate|confirm)|the data (?:shows|indicates)|"
    r"i (?:looked|checked|searched|visited|browsed)|after (?:reviewing|checking|visiting|searching)|"
    r"here (?:is|are) the|obtained|gathered|collected)\b",
    re.IGNORECASE,
)
"""Claims that facts came from a source (which should then be in an observation)."""

RESULT_CLAIM_RE = re.compile(
    r"\b(\d+ (?:tests? )?passed|all (?:the )?tests pass(?:ed)?|tests? (?:now )?pass(?:ed|es)?|"
    r"returned? (?:[\"'{(]*\s*)?(?:\"?status\"?\s*:\s*)?[\"']?(?:ok|success)\b|succeeded|"
    r"exit(?:ed)? (?:with )?(?:code |status )?0\b|works? (?:now|correctly|as expected))",
    re.IGNORECASE,
)
"""Claims that an execution produced a good result (tests passed, command succeeded)."""

_NOT_ASSERTED_RE = re.compile(
    r"\b(?:let'?s|let me|i(?:'ll| will| need to| should| want to)|we(?:'ll| will| need to| should| want to| can)|"
    r"(?:to|and|then|now|first) (?:verify|check|confirm|test|see)|ensure|make sure|must|should|needs? to|"
    r"verify (?:that|if|whether)|"
    r"check (?:that|if|whether)|whether|if|once|until|unless|what|which|not|n't|never|unable)\b[^.!?\n]*$",
    re.IGNORECASE,
)


def asserted(pattern: re.Pattern[str], prose: str) -> re.Match[str] | None:
    """The first match of ``pattern`` that the prose asserts.

    A match in a sentence that only announces a check ("let's verify that it works
    correctly", "to see whether the tests pass"), makes it a condition or a question ("once
    you have it, we can conclude the task", "say what tasks have been completed") or negates
    it ("it does not work correctly") asserts nothing.
    """
    for m in pattern.finditer(prose):
        if asserts_at(prose, m.start()):
            return m
    return None


def asserts_at(prose: str, start: int) -> bool:
    """Whether a claim starting at ``start`` is asserted (see :func:`asserted`).

    It is when the sentence before it neither announces a check, makes it a condition or a
    question, nor negates it.
    """
    sentence = re.split(r"[.!?\n]", prose[max(0, start - 120):start])[-1]
    return not _NOT_ASSERTED_RE.search(sentence)


REVISION_RE = re.compile(
    r"\b(instead|alternative(?:ly)?|different approach|another approach|new approach|"
    r"(?:didn't|did not|doesn't|does not|won't|will not) work|was wrong|were wrong|mistake|incorrect(?:ly)?|"
    r"re-?evaluate|reconsider|revise|correct(?:ed)? (?:approach|version|code)|let me fix|let's fix|"
    r"try again|start over|adjust (?:the|our) approach)\b",
    re.IGNORECASE,
)
"""Cues that the approach is being changed or corrected."""

WORKAROUND_RE = re.compile(
    r"\b(manual(?:ly)?|(?:don't|do not|doesn't|does not) have (?:access|the (?:actual|real|required|necessary))|"
    r"(?:unable|not able) to (?:access|retrieve|find|fetch|obtain|locate)|cannot (?:access|retrieve|find|fetch)|"
    r"without (?:access|the actual|real)|(?:is|are) not (?:available|accessible)|instead of|in the meantime|"
    r"for now|as a workaround|let's proceed (?:with|by|assuming)|proceed (?:with|using) (?:the )?(?:available|provided))\b",
    re.IGNORECASE,
)
"""Cues that an agent works around missing data or tools instead of getting them."""

ERROR_MENTION_RE = re.compile(
    r"\b(error|errors|exception|fail(?:ed|ure|s)?|issue|problem|bug|traceback|not found|missing|"
    r"fix|fixed|fixing|wrong|invalid|unable|couldn't|could not|cannot|can't)\b",
    re.IGNORECASE,
)
"""Words showing a step engages with an error."""


def _http_status(codes: str) -> str:
    """A regex for the HTTP status ``codes`` where they read as one.

    "HTTP 503", "status code: 429" and "503 Server Error" count; a number that happens to be
    503 (a file size, a row count, a line number) does not.
    """
    return (rf"(?:\bHTTP(?:Error|/\d(?:\.\d)?)?|\bstatus(?:[ _]?code)?|\bresponse(?:[ _]?code)?|\berror(?:[ _]?code)?|"
            rf"\breturned|\bresponded with)\W{{0,3}}\s*(?:{codes})\b|\b(?:{codes})\s+(?:client |server )?error\b")


ENV_STRONG_RE = re.compile(
    r"(rate[- ]limit|ratelimit(?:ed| exceeded)|too many requests|" + _http_status("429|50[0234]") + r"|"
    r"(?<![-_])timed?[- ]?out(?!\s*[=(])|deadline exceeded|"
    r"connection (?:refused|reset|error|aborted|closed)|ConnectionError|ConnectTimeout|ReadTimeout|"
    r"network is unreachable|temporary failure in name resolution|name or service not known|"
    r"service unavailable|bad gateway|gateway timeout|internal server error|"
    r"quota (?:exceeded|exhausted)|out of memory|\bOOM(?:[- ]?kill(?:ed|er))?\b|(?m:^\s*Killed\b)|"
    r"no space left on device|SSLError|certificate verify failed|exit code 124|exitcode: 124)",
    re.IGNORECASE,
)
"""Infrastructure failures (not the agent's fault). Status codes count only in an HTTP context,
"Killed" only as the shell prints it (at the start of a line), and "timeout" neither as a
parameter (``timeout=10``) nor inside a name (``async-timeout``, ``read_timeout``)."""

ENV_RESOURCE_RE = re.compile(
    r"(No such file or directory|FileNotFoundError|ModuleNotFoundError|No module named|"
    r"command not found|" + _http_status("40[134]") + r"|not found on (?:the )?server|permission denied|"
    r"PermissionError|access denied|unauthori[sz]ed|forbidden|invalid api key|"
    r"api key (?:is )?(?:missing|invalid|not (?:set|provided))|resource (?:is )?unavailable|does not exist)",
    re.IGNORECASE,
)
"""Missing or inaccessible resources."""


def content_words(text: str) -> frozenset[str]:
    """Lower-cased content words (length >= 3, not stopwords)."""
    return _content_words_cached(text[:20000])


@lru_cache(maxsize=8192)
def _content_words_cached(text: str) -> frozenset[str]:
    return frozenset(w for w in (m.group(0).lower() for m in _WORD_RE.finditer(text))
                     if len(w) >= 3 and w not in STOPWORDS)


def containment(part: Iterable[str], whole: Iterable[str]) -> float:
    """Share of ``part`` found in ``whole`` (0 when ``part`` is empty)."""
    p = set(part)
    if not p:
        return 0.0
    return len(p & set(whole)) / len(p)


def jaccard(a: Iterable[str], b: Iterable[str]) -> float:
    """Jaccard similarity of two collections (0 when both are empty)."""
    sa, sb = set(a), set(b)
    if not sa and not sb:
        return 0.0
    return len(sa & sb) / len(sa | sb)


_TOKEN_RE = re.compile(r"[A-Za-z0-9_']+")


def shingles(text: str, n: int = 3) -> set[str]:
    """Word/number n-grams of a normalised text (for near-duplicate checks)."""
    words = [w.lower() for w in _TOKEN_RE.findall(text)] or text.lower().split()
    if len(words) < n:
        return {" ".join(words)} if words else set()
    return {" ".join(words[i:i + n]) for i in range(len(words) - n + 1)}


def normalise_number(raw: str) -> str | None:
    """Canonical form of a number token (``$1,200.50`` -> ``1200.5``), None if not a number."""
    s = raw.strip().lstrip("+").replace("$", "").replace(",", "").rstrip("%")
    if not s or s in ("-", "."):
        return None
    try:
        v = float(s)
    except ValueError:
        return None
    if v.is_integer():
        return str(int(v))
    return repr(round(v, 6)).rstrip("0").rstrip(".")


def numbers(text: str) -> set[str]:
    """All numbers in a text, normalised."""
    out: set[str] = set()
    for m in _NUM_RE.finditer(text[:50000]):
        n = normalise_number(m.group(0))
        if n is not None:
            out.add(n)
    return out


_RUN_REFERENCE_RE = re.compile(
    r"\b(?:steps?|turns?|rounds?|observations?|attempts?|iterations?)[ \t]+#?\d+"
    r"(?:[ \t]*(?:-|–|to|and|through)[ \t]*\d+)?", re.IGNORECASE)
"""A number that points into the run itself ("Step 12", "steps 1 to 19", "Observation 3"): the
memory recaps agents write each turn are full of them, and they claim nothing about the world."""


def significant_numbers(text: str) -> set[str]:
    """Numbers that carry a claim.

    Not list markers or tiny counters (|x| >= 10 or fractional), nor references to the run's own
    steps (:data:`_RUN_REFERENCE_RE`).
    """
    out: set[str] = set()
    if _RUN_REFERENCE_RE.search(text[:50000]):
        text = _RUN_REFERENCE_RE.sub(" ", text[:50000])
    for n in numbers(text):
        try:
            v = abs(float(n))
        except ValueError:
            continue
        if v >= 10 or not float(n).is_integer():
            out.add(n)
    return out


def code_blocks(text: str) -> list[str]:
    """Contents of fenced code blocks."""
    return [m.group(1) for m in _CODE_RE.finditer(text)]


_FORMAT_CUE_RE = re.compile(
    r"\b(?:(?:following|output|response|this|the)\s+format|format\s*:|adhere\s+to|template|schema)\b", re.IGNORECASE)
_PLACEHOLDER_RE = re.compile(
    r"^\s*(?:\.\.\.|…),?\s*$|,\s*(?:\.\.\.|…)\s*[}\]]|\barg_(?:name|value)\b|<(?:your|insert)\b[^<>\n]{0,40}>",
    re.IGNORECASE | re.MULTILINE)
FORMAT_CUE_WINDOW = 300
"""Characters before a code block searched for a format cue ("in the following format")."""


def format_templates(text: str) -> list[str]:
    """Code blocks that specify an output format rather than do something.

    A block counts when the text just before it announces a format ("Output should adhere to
    the following format", "template", "schema") *and* the block holds placeholders: a line
    of only ``...``, a trailing ``, ...}``, ``arg_name``/``arg_value``, ``<your …>``. Systems
    that log an agent's whole prompt as its message (MetaGPT's role prompts) carry one such
    block in every prompt; it is the instruction the model was given, not an action.
    """
    return [block for block, template in marked_code_blocks(text) if template]


def marked_code_blocks(text: str) -> list[tuple[str, bool]]:
    """Contents of fenced code blocks, each with whether it is a format template (:func:`format_templates`)."""
    out: list[tuple[str, bool]] = []
    for m in _CODE_RE.finditer(text):
        before = text[max(0, m.start() - FORMAT_CUE_WINDOW):m.start()]
        out.append((m.group(1), bool(_FORMAT_CUE_RE.search(before) and _PLACEHOLDER_RE.search(m.group(1)))))
    return out


def _echoes(step: Step) -> bool:
    """:func:`echoes_prompt` (the name this module's helpers call)."""
    return "```" in step.text and bool(format_templates(step.text[:50000]))


def strip_code(text: str) -> str:
    """The text with fenced code blocks removed."""
    return _CODE_RE.sub(" ", text)


def squash(text: str) -> str:
    """Whitespace-collapsed, lower-cased text."""
    return _WS_RE.sub(" ", text).strip().lower()


_LIST_ITEM_RE = re.compile(r"^\s*(?:\d+[.)]|[-*•])\s+\S", re.MULTILINE)


def list_items(text: str) -> int:
    """Number of enumerated or bulleted lines."""
    return len(_LIST_ITEM_RE.findall(text[:50000]))


def is_empty_output(text: str) -> bool:
    """True when a tool output carries (almost) no content after a status header."""
    body = re.sub(r"\A\s*exit\s*code\s*:\s*-?\d+[^\n]*\n?", "", text, flags=re.IGNORECASE)
    body = re.sub(r"\A\s*(?:code )?output\s*:", "", body.strip(), flags=re.IGNORECASE).strip()
    return len(body) < 3 or body in ("[]", "{}", "None", "null", "''", '""', "0", "()")


def _salient_name(phrase: str) -> bool:
    """True for a capitalised phrase worth tracking.

    Several words, or one word with a digit, a joiner, an inner capital or all capitals
    (plain capitalised words are mostly sentence starts or table headers).
    """
    if len(phrase) <= 3:
        return False
    if " " in phrase:
        return True
    return (any(c.isdigit() for c in phrase) or any(c in "-_&." for c in phrase[1:])
            or any(c.isupper() for c in phrase[1:]))


def entities(text: str) -> set[str]:
    """Salient items of a text: names (see :func:`_salient_name`), quoted strings and significant numbers."""
    out = {m.group(0).strip(" .").lower() for m in _CAP_RE.finditer(text[:20000])
           if _salient_name(m.group(0).strip(" ."))}
    out |= {m.group(1).strip().lower() for m in _QUOTED_RE.finditer(text[:20000])}
    out -= {w for w in out if w in STOPWORDS}
    return out | significant_numbers(text)


_CHANNEL_RE = re.compile(r"\s*\((?!\s*#?\d+\s*\))[^()]*\)\s*$")


def _identity(step: Step) -> str:
    """:func:`agent_identity` (the name this module's helpers call)."""
    name = step.agent or str(step.role)
    return _CHANNEL_RE.sub("", name) or name


def _decides(step: Step) -> bool:
    """:func:`is_decision` (the name this module's helpers call)."""
    return step.kind in AGENT_DECISION_KINDS


def _observes(step: Step) -> bool:
    """:func:`is_observation` (the name this module's helpers call)."""
    return step.kind == StepKind.OBSERVATION or (
        step.role in (Role.TOOL, Role.ENVIRONMENT) and step.kind not in AGENT_DECISION_KINDS)


_ACTION_SECTION_RE = re.compile(r"<action>|^\s*Action\s*:", re.MULTILINE | re.IGNORECASE)


def _calls_tool(step: Step) -> bool:
    """A tool call or a structured action (the part every "does this step act" test shares)."""
    return bool(step.tool_name) or step.kind in (StepKind.ACTION, StepKind.TOOL_CALL)


def _acts(step: Step) -> bool:
    """:func:`acts` (the name this module's helpers call)."""
    if not _decides(step):
        return False
    text = step.text[:50000]
    return _calls_tool(step) or "```" in text or bool(_ACTION_SECTION_RE.search(text))


def _source(steps: Sequence[Step], j: int) -> int | None:
    """:func:`source_decision` (the name this module's helpers call)."""
    latest: int | None = None
    k = j - 1
    while k >= 0 and not _observes(steps[k]):
        s = steps[k]
        if _decides(s):
            if _acts(s):
                return s.index
            if latest is None:
                latest = s.index
        k -= 1
    if latest is not None:
        return latest
    while k >= 0 and not _decides(steps[k]):
        k -= 1
    return steps[k].index if k >= 0 else None


def output_sources(steps: Sequence[Step]) -> Iterator[tuple[Step, Step | None]]:
    """Each observation with the decision that produced it, in one pass over ``steps``.

    The decision is :func:`source_decision`'s (its twin for random access; a test keeps the two
    equal): the latest acting decision since the previous observation, else the latest decision
    since then, else the latest decision before it.
    """
    latest: Step | None = None
    since: Step | None = None
    since_acting: Step | None = None
    for s in steps:
        if _decides(s):
            latest = since = s
            since_acting = s if _acts(s) else since_acting
        elif _observes(s):
            yield s, since_acting or since or latest
            since = since_acting = None


def unresolved_error(steps: Sequence[Step], at: int) -> int | None:
    """The first error output before step ``at`` that the run has not resolved by then, else None.

    An error output is resolved when a later output of the same action (the decision that
    produced it, :func:`output_sources`, compared by :func:`action_signature`) succeeds before
    ``at``: the failing test run passes when it is run again. An error whose action is not
    known stays unresolved.
    """
    open_errors: dict[str, int] = {}
    unknown: int | None = None
    for s, src in output_sources(steps[:max(0, at)]):
        sig = _signature(src) if src is not None else None
        if s.is_error:
            if sig is None:
                unknown = s.index if unknown is None else unknown
            else:
                open_errors.setdefault(sig, s.index)
        elif sig is not None:
            open_errors.pop(sig, None)
    found = [*open_errors.values(), *([unknown] if unknown is not None else [])]
    return min(found) if found else None


def next_observation(steps: Sequence[Step], i: int) -> Step | None:
    """The tool output answering decision ``i``: the next observation whose :func:`source_decision` it is.

    The scan stops at the first decision after ``i`` that would answer for the output instead:
    one that acts, or any decision when ``i`` does not act.
    """
    acting = _acts(steps[i])
    for k in range(i + 1, len(steps)):
        s = steps[k]
        if _observes(s):
            return s if acting or _source(steps, k) == i else None
        if _decides(s) and (not acting or _acts(s)):
            return None
    return None


def is_input(step: Step) -> bool:
    """True for task input (user or system steps)."""
    return step.kind in (StepKind.USER, StepKind.SYSTEM)


def _acting(step: Step) -> bool:
    """:func:`is_acting` (the name this module's helpers call)."""
    if not _decides(step):
        return False
    return _calls_tool(step) or "```" in step.text


def _signature(step: Step) -> str | None:
    """:func:`action_signature` (the name this module's helpers call)."""
    if not _decides(step):
        return None
    if step.tool_name or step.tool_args:
        return squash(f"{step.tool_name or ''} {step.tool_args or ''}")
    blocks = [b for b, template in marked_code_blocks(step.text) if not template]
    if blocks:
        return squash("\n".join(blocks))
    if step.kind in (StepKind.ACTION, StepKind.TOOL_CALL):
        return squash(step.text) or None
    return None


def is_termination_only(text: str) -> bool:
    """True for a bare termination/acknowledgement message (e.g. ``TERMINATE``)."""
    words = _WORD_RE.findall(text)
    return 0 < len(words) <= 3 and bool(DONE_RE.search(text))


def error_text(step: Step) -> str:
    """Error description of a step, falling back to its text."""
    return step.error_text or (step.text[:2000] if step.is_error else "")


UNCHANGED_ACTION = 0.9
"""Shingle similarity (:func:`shingles`, :func:`jaccard`) of two actions' signatures from which
the second is the first one retried unchanged."""


def names_error(error: str, reply: str) -> bool:
    """Whether ``reply`` takes up what ``error`` is about.

    It does when it shares three of the error's content words, or half of them for a short error
    whose subject is one or two words (``KeyError: 'Price'`` and "the exact name of the price
    column"). Exception class names (``KeyError``) do not count as a subject, and quote marks
    around a word (``'Price'``) do not make it another word.
    """
    key = {w.strip("'") for w in content_words(error)} - {""}
    key = {w for w in key if not w.endswith(("error", "exception"))}
    shared = len(key & {w.strip("'") for w in content_words(reply)})
    return shared >= 3 or (shared >= 1 and 2 * shared >= len(key))


def responds_to_error(reply: Step, error: Step, failed: Step | None = None,
                      signatures: tuple[str | None, str | None] | None = None) -> bool:
    """Whether decision ``reply`` responds to the error output ``error`` of ``failed``'s action.

    It does when it acts otherwise than the failed action (a changed script, another tool, a
    wait: a change of strategy needs no words about the error), or when its words mention an
    error or a revision (:data:`ERROR_MENTION_RE`, :data:`REVISION_RE`) or take up the error's
    subject (:func:`names_error`). An unchanged retry responds only through its words outside
    the action: the failing code names the error's subject too. ``signatures`` gives the
    :func:`action_signature` of ``failed`` and ``reply`` when the caller has them (the step-signal
    table's column).
    """
    if signatures is not None:
        old, new = signatures
    else:
        old = _signature(failed) if failed is not None else None
        new = _signature(reply)
    if old is not None and new is not None:
        if old != new and jaccard(shingles(old), shingles(new)) < UNCHANGED_ACTION:
            return True
        text = strip_code(reply.text) if not (reply.tool_name or reply.tool_args) else reply.text
    else:
        text = f"{reply.text}\n{reply.tool_args or ''}"
    said = error_text(error) or error.text
    return bool(ERROR_MENTION_RE.search(text) or REVISION_RE.search(text) or names_error(said[:2000], text))


def quote(text: str, limit: int = 200) -> str:
    """Short single-line quote of a text."""
    t = _WS_RE.sub(" ", text).strip()
    return t if len(t) <= limit else t[: limit - 1] + "…"


_HEADING_PREFIX_RE = re.compile(r"^[\s#>*_\-]*(?:\(?\d+[.)]|[A-Z][.)])?\s*")


def strip_headings(text: str) -> str:
    """``text`` without its capitalised heading lines, such as Magentic-One's ``1. GIVEN OR VERIFIED FACTS``.

    A heading names a section and claims nothing, so claim detectors read the text without
    them. A heading line has no lower-case letter, at least four letters and at most 60
    characters once its numbering and markdown are removed.
    """
    if not any(c.isupper() for c in text[:20000]):
        return text
    kept = []
    for line in text.splitlines():
        body = _HEADING_PREFIX_RE.sub("", line).strip().rstrip(":").strip("*_ ")
        letters = [c for c in body if c.isalpha()]
        if len(letters) >= 4 and len(body) <= 60 and all(c.isupper() for c in letters):
            continue
        kept.append(line)
    return "\n".join(kept)


def match_quote(text: str, pattern: re.Pattern[str], limit: int = 160) -> str:
    """Quote around the first match of ``pattern`` (or the start of the text)."""
    return quote_around(text, pattern.search(text), limit)


def quote_around(text: str, m: re.Match[str] | None, limit: int = 160) -> str:
    """Quote of ``text`` around the match ``m`` of it (or the start of the text when None)."""
    if not m:
        return quote(text, limit)
    start = max(0, m.start() - limit // 3)
    return quote(text[start:start + limit], limit)


def task_containment(task: str, text: str) -> float:
    """Share of the task's content words that appear in ``text`` (finds restated briefings)."""
    return containment(content_words(task), content_words(text))


_FENCED_BLOCK_RE = re.compile(r"```([\w+-]*)[ \t]*\n.*?(?:```|\Z)", re.DOTALL)
_RUNNABLE_LANGUAGES = frozenset({"", "python", "py", "python3", "sh", "bash", "shell", "console", "zsh"})


def _has_runnable_block(text: str) -> bool:
    """Whether ``text`` holds a fenced block of code to run (Python or shell, or unlabelled).

    Blocks are matched whole, so the closing fence of a JSON block is not read as the opening of
    an unlabelled one; a block cut off by the end of the text counts.
    """
    return any(m.group(1).casefold() in _RUNNABLE_LANGUAGES for m in _FENCED_BLOCK_RE.finditer(text))


def _runs(step: Step) -> bool:
    """:func:`runs_code` (the name this module's helpers call)."""
    if not _decides(step):
        return False
    return _calls_tool(step) or (_has_runnable_block(step.text[:50000]) and not _echoes(step))


_HANDOFF_TOOL_RE = re.compile(
    r"^(?:transfer(?:_back)?_to_\w+|handoff_to_\w+|handoff|delegate[_ ]work[_ ]to[_ ]coworker)$", re.IGNORECASE)


def _hands_off(step: Step) -> bool:
    """:func:`is_handoff` (the name this module's helpers call)."""
    return bool(step.tool_name) and bool(_HANDOFF_TOOL_RE.match((step.tool_name or "").strip()))


BRIEFING_CONTAINMENT = 0.7
"""Share of the task's content words a leading step must restate to count as briefing (:func:`briefing_steps`)."""


def briefing_steps(steps: list[Step], task: str) -> set[int]:
    """Leading steps that only state the task: input steps, and steps restating most of it.

    The first agent decision after these is the one that commits to an approach. A step that
    runs something (:func:`runs_code`: a tool call, an action, a runnable code block; not a JSON
    block or a logged prompt) commits, however much of the task it repeats (a first script that
    names the task's file and column).
    """
    out: set[int] = set()
    tw = content_words(task)
    for s in steps:
        if is_input(s):
            out.add(s.index)
            continue
        if tw and len(out) == s.index and not _runs(s) and containment(tw, content_words(s.text)) >= BRIEFING_CONTAINMENT:
            out.add(s.index)
            continue
        break
    return out


# Public names: thin wrappers, so that counting calls to them (tests) counts the callers outside this
# module only; the helpers here call each other through the private names.


def is_decision(step: Step) -> bool:
    """True for agent decisions (thought, action, tool call, message)."""
    return _decides(step)


def is_observation(step: Step) -> bool:
    """True for tool/environment output."""
    return _observes(step)


def acts(step: Step) -> bool:
    """True when a decision step acts: a tool call, a code block or a ReAct/XML action section."""
    return _acts(step)


def echoes_prompt(step: Step) -> bool:
    """True when a step's text carries an output-format template (:func:`format_templates`).

    Such a step logs the prompt the model was given, so repeating it is not the agent
    repeating itself.
    """
    return _echoes(step)


def action_signature(step: Step) -> str | None:
    """Normalised description of what a decision step does, for duplicate checks.

    Tool name plus arguments for tool calls; the code blocks for steps that carry code (not
    output-format templates, :func:`format_templates`); None for steps that do not act.
    """
    return _signature(step)


def runs_code(step: Step) -> bool:
    """A tool call or action, or code to run (not a logged prompt, not a JSON/text block)."""
    return _runs(step)


def source_decision(steps: Sequence[Step], j: int) -> int | None:
    """The decision whose action produced observation ``j``.

    That is the latest decision since the previous observation that acts (:func:`acts`), else the
    latest decision before ``j``. Between the code and its output a team often sends a message
    that only asks to run it (Magentic-One's orchestrator: "Please run the script the Coder
    wrote."): the output answers the code, not the request.
    """
    return _source(steps, j)


def is_acting(step: Step) -> bool:
    """True when a decision step acts on the world (tool call, action, or code to run)."""
    return _acting(step)


def agent_identity(step: Step) -> str:
    """The agent behind a step, without a channel suffix.

    Some systems name one agent's kinds of message apart: Magentic-One writes ``Orchestrator
    (thought)``, ``Orchestrator (-> WebSurfer)`` and ``Orchestrator (termination condition)``
    for its orchestrator. Role inference counts them as one agent, ``Orchestrator``. A numbered
    suffix (``Coder (2)``) names another agent and is kept.
    """
    return _identity(step)


def is_handoff(step: Step) -> bool:
    """A tool call that only hands the conversation to another agent.

    The handoff tools of agent frameworks: ``transfer_to_<agent>`` (AutoGen Swarm, the OpenAI
    Agents SDK, LangGraph's swarm), ``transfer_back_to_<agent>``, ``handoff_to_<agent>``, and
    CrewAI's "Delegate work to coworker". Routing, not work.
    """
    return _hands_off(step)

