"""Phase 1 of ``apply``: every JSONL line parsed and checked before any op runs
(docs/cli-contract.md §3.2).

Everything that can be decided without the tree is decided here (JSON, op names, field names and
types, ranges, the closed type and relation vocabularies, instants), so a batch with a typo on
line 400 fails before line 1 has touched anything.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from typing import Final, TypeVar

import attrs

from memhtml.app.errors import MissingArgument
from memhtml.domain.errors import InvalidInput
from memhtml.domain.json_depth import nests_deeper_than
from memhtml.domain.vocabulary import LINKABLE_RELS
from memhtml.domain.write_requests import WriteRequest, checked

T = TypeVar("T")

OP_WRITE: Final = "write"
OP_LINK: Final = "link"
OP_ARCHIVE: Final = "archive"
ARTICLE_FIELDS: Final = ("claim", "body", "article_html")
_STRING_FIELDS: Final = (
    "title",
    "type",
    "claim",
    "article_html",
    "path",
    "workspace",
    "event_at",
    "valid_from",
    "session_id",
    "prompt_id",
    "turn_uuid",
)
_WRITE_FIELDS: Final = frozenset(
    {
        *_STRING_FIELDS,
        "body",
        "strict_path",
        "tag",
        "entity",
        "importance",
        "confidence",
        "pinned",
    }
)
MAX_LINE_DEPTH: Final = 32
"""The deepest nesting of arrays and objects an op line may have (docs/cli-contract.md §3.2).
A valid op nests two levels (an object holding arrays); the limit only keeps the decoder's
recursion far from Python's, so a line of 100,000 ``[`` is bad input, not a crash."""

_FIELDS: Final[Mapping[str, frozenset[str]]] = {
    OP_WRITE: _WRITE_FIELDS,
    OP_LINK: frozenset({"src", "rel", "dst"}),
    OP_ARCHIVE: frozenset({"path", "reason"}),
}


@attrs.frozen(kw_only=True)
class SessionDefaults:
    """``--session-id``/``--prompt-id``/``--turn-uuid`` for a whole batch; an op's own wins."""

    session_id: str | None = None
    prompt_id: str | None = None
    turn_uuid: str | None = None


@attrs.frozen(kw_only=True)
class WriteOp:
    """A checked ``write`` line."""

    line: int
    request: WriteRequest


@attrs.frozen(kw_only=True)
class LinkOp:
    """A checked ``link`` line."""

    line: int
    src: str
    rel: str
    dst: str


@attrs.frozen(kw_only=True)
class ArchiveOp:
    """A checked ``archive`` line."""

    line: int
    path: str
    reason: str


ApplyOp = WriteOp | LinkOp | ArchiveOp


def parse_apply_lines(
    lines: Iterable[str], defaults: SessionDefaults | None = None
) -> tuple[ApplyOp, ...]:
    """Every op of a JSONL batch, in order; blank lines skipped.

    Args:
        lines: The batch's lines (numbered from 1 as given, blank ones included).
        defaults: Batch-wide session values, applied where an op names none.

    Raises:
        InvalidInput: Bad JSON (nesting past :data:`MAX_LINE_DEPTH` included), a line that is
            not an object, an unknown op or field, a value of the wrong type or out of range,
            a type or relation outside the vocabulary, a malformed instant, or article fields
            that exclude each other. Names the line.
        MissingArgument: A required field is absent (or ``null``). Names the line.
    """
    session = defaults or SessionDefaults()
    ops: list[ApplyOp] = []
    for number, line in enumerate(lines, start=1):
        if line.strip():
            ops.append(_parse_line(number, line, session))
    return tuple(ops)


def _parse_line(number: int, line: str, session: SessionDefaults) -> ApplyOp:
    try:
        if nests_deeper_than(line, MAX_LINE_DEPTH):
            raise InvalidInput(f"JSON nests deeper than {MAX_LINE_DEPTH} levels")
        try:
            raw = json.loads(line)
        except json.JSONDecodeError as e:
            raise InvalidInput("not valid JSON") from e
        if not isinstance(raw, dict):
            raise InvalidInput("each line must be a JSON object")
        op = raw.get("op")
        if not isinstance(op, str) or op not in _FIELDS:
            raise InvalidInput(f"op must be one of {', '.join(_FIELDS)}")
        unknown = sorted(set(raw) - _FIELDS[op] - {"op"})
        if unknown:
            raise InvalidInput(f"unknown field {unknown[0]!r} for op {op}")
        # JSON null reads as absent, as an omitted key would.
        fields = {key: value for key, value in raw.items() if value is not None}
        if op == OP_LINK:
            rel = _required(fields, "rel", _string)
            if rel not in LINKABLE_RELS:
                raise InvalidInput(f"rel must be one of {', '.join(LINKABLE_RELS)}")
            src, dst = _required(fields, "src", _string), _required(fields, "dst", _string)
            return LinkOp(line=number, src=src, rel=rel, dst=dst)
        if op == OP_ARCHIVE:
            path = _required(fields, "path", _string)
            reason = _required(fields, "reason", _string)
            if not reason.strip():
                raise MissingArgument("archive needs a non-blank reason")
            return ArchiveOp(line=number, path=path, reason=reason)
        return WriteOp(line=number, request=_write_request(fields, session))
    except InvalidInput as error:
        # The same class (MissingArgument stays MissingArgument), with the line in front.
        raise type(error)(f"line {number}: {error}") from error


def _write_request(fields: Mapping[str, object], session: SessionDefaults) -> WriteRequest:
    title = _required(fields, "title", _string)
    memory_type = _required(fields, "type", _string)
    if not any(name in fields for name in ARTICLE_FIELDS):
        raise MissingArgument("write needs claim, body or article_html")
    return checked(
        WriteRequest(
            title=title,
            memory_type=memory_type,
            claim=_optional(fields, "claim", _string),
            body=_optional(fields, "body", _strings) or (),
            article_html=_optional(fields, "article_html", _string),
            path=_optional(fields, "path", _string),
            strict_path=_optional(fields, "strict_path", _boolean) or False,
            workspace=_optional(fields, "workspace", _string),
            tags=_optional(fields, "tag", _strings) or (),
            entities=_optional(fields, "entity", _strings) or (),
            importance=_optional(fields, "importance", _importance),
            confidence=_optional(fields, "confidence", _confidence),
            event_at=_optional(fields, "event_at", _string),
            valid_from=_optional(fields, "valid_from", _string),
            session_id=_optional(fields, "session_id", _string) or session.session_id,
            prompt_id=_optional(fields, "prompt_id", _string) or session.prompt_id,
            turn_uuid=_optional(fields, "turn_uuid", _string) or session.turn_uuid,
            pinned=_optional(fields, "pinned", _boolean) or False,
        )
    )


def _required(fields: Mapping[str, object], name: str, read: Callable[[str, object], T]) -> T:
    if name not in fields:
        raise MissingArgument(f"missing field {name!r}")
    return read(name, fields[name])


def _optional(
    fields: Mapping[str, object], name: str, read: Callable[[str, object], T]
) -> T | None:
    return read(name, fields[name]) if name in fields else None


def _string(name: str, value: object) -> str:
    if not isinstance(value, str):
        raise InvalidInput(f"{name} must be a string")
    return value


def _strings(name: str, value: object) -> tuple[str, ...]:
    """A string, or an array of strings (``body``, ``tag``, ``entity``)."""
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return tuple(value)
    raise InvalidInput(f"{name} must be a string or an array of strings")


def _boolean(name: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise InvalidInput(f"{name} must be true or false")
    return value


def _importance(name: str, value: object) -> int:
    # bool is an int subclass in Python; `true` is not an importance.
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 10:
        raise InvalidInput(f"{name} must be an integer from 1 to 10")
    return value


def _confidence(name: str, value: object) -> float:
    # Compared before converting: float() of a huge JSON integer overflows, and NaN compares
    # false with everything, so it is refused here too.
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        raise InvalidInput(f"{name} must be a number from 0 to 1")
    return float(value)
