"""Reading the head: title, ``memhtml-*`` metas and ``memhtml-*`` links (docs/format.md §2, §3).

Returns the typed values as keyword arguments for ``MemoryDoc`` and records every violation and
warning on the shared ``Findings``. A malformed optional value is dropped with a
``meta-malformed`` warning so its column default applies; a malformed required one, or a due
date, is a violation.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any, Final

from memhtml.adapters.html.constraints import Findings, quoted
from memhtml.adapters.html.scan import Scan
from memhtml.domain import meta_names as m
from memhtml.domain.datetimes import is_valid_datetime
from memhtml.domain.model import (
    ACTIVE_STATUS,
    ARCHIVED_STATUS,
    ASCII_WHITESPACE,
    Link,
    collapse_whitespace,
    link_target_of,
    split_entity_ref,
)
from memhtml.domain.vocabulary import MEMORY_TYPES, TASK_STATUSES, TASK_TYPE, token_to_rel

DECIMAL: Final = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
# Eighteen digits always fit SQLite's 64-bit INTEGER, and stay clear of the length limit
# Python puts on int() of a digit string.
_INTEGER: Final = re.compile(r"[+-]?[0-9]{1,18}")
_CONTENT_HASH: Final = re.compile(r"sha256:[0-9a-f]{64}")
_AUTHOR: Final = re.compile(r"agent|(?:agent|human):.+", re.DOTALL)
_TRUE_WORDS: Final = frozenset({"true", "1", "yes"})
MAX_IMPORTANCE: Final = 10
MIN_IMPORTANCE: Final = 1


def parse_decimal(value: str) -> float | None:
    """A finite decimal number (sign, fraction and exponent allowed), else None."""
    if DECIMAL.fullmatch(value) is None:
        return None
    number = float(value)
    return number if math.isfinite(number) else None


def _confidence(value: str) -> float | None:
    number = parse_decimal(value)
    return number if number is not None and 0.0 <= number <= 1.0 else None


def _integer_in(low: int, high: int | None) -> Callable[[str], int | None]:
    def parse(value: str) -> int | None:
        if _INTEGER.fullmatch(value) is None:
            return None
        number = int(value)
        return number if number >= low and (high is None or number <= high) else None

    return parse


def _matching(pattern: re.Pattern[str]) -> Callable[[str], str | None]:
    return lambda value: value if pattern.fullmatch(value) else None


def _datetime(value: str) -> str | None:
    return value if is_valid_datetime(value) else None


def _superseded_by(value: str) -> str | None:
    return value if link_target_of(value) is not None else None


# Optional metas whose malformed value is dropped with a warning: name → (field, parser).
_OPTIONAL: Final[dict[str, tuple[str, Callable[[str], Any]]]] = {
    m.CONFIDENCE: ("confidence", _confidence),
    m.IMPORTANCE: ("importance", _integer_in(MIN_IMPORTANCE, MAX_IMPORTANCE)),
    m.CONTENT_HASH: ("stated_content_hash", _matching(_CONTENT_HASH)),
    m.AUTHOR: ("author", _matching(_AUTHOR)),
    m.VALID_FROM: ("valid_from", _datetime),
    m.VALID_UNTIL: ("valid_until", _datetime),
    m.REPRIEVES: ("reprieves", _integer_in(0, None)),
    m.ARCHIVED: ("archived_at", _datetime),
    m.SUPERSEDED_BY: ("superseded_by", _superseded_by),
}
_OPAQUE: Final = {m.SESSION: "session_id", m.PROMPT: "prompt_id", m.TURN: "turn_uuid"}


def read_head(scan: Scan, findings: Findings) -> dict[str, Any]:
    """The ``MemoryDoc`` fields the head determines; problems go to ``findings``."""
    fields: dict[str, Any] = {"title": _read_title(scan, findings)}
    metas = _memhtml_metas(scan)
    values = _read_metas(metas, findings)
    fields.update(_required_fields(values, findings))
    for name, (field, parse) in _OPTIONAL.items():
        if name in values:
            parsed = parse(values[name])
            if parsed is None:
                findings.warning("meta-malformed", f"{name} value is malformed; default used")
            else:
                fields[field] = parsed
    fields.update({field: values[name] for name, field in _OPAQUE.items() if name in values})
    fields["needs_revision"] = values.get(m.NEEDS_REVISION, "").lower() in _TRUE_WORDS
    fields["pinned"] = values.get(m.PINNED, "").lower() in _TRUE_WORDS
    fields["task_status"] = _task_status(values, fields["memory_type"], findings)
    due = values.get(m.DUE)
    if due is not None and not is_valid_datetime(due):
        findings.violation("due-invalid", f"{m.DUE} fails the datetime rule")
    fields["due_at"] = due
    for name in (m.CREATED, m.UPDATED):
        if name in values and not is_valid_datetime(values[name]):
            findings.violation("date-invalid", f"{name} fails the datetime rule")
    repeated = _repeated_values(metas)
    entities = (split_entity_ref(value) for value in repeated[m.ENTITY])
    fields["entities"] = tuple(dict.fromkeys(entities))
    fields["tags"] = tuple(dict.fromkeys(repeated[m.TAG]))
    fields["aliases"] = tuple(dict.fromkeys(repeated[m.ALIAS]))
    fields["links"] = _read_links(scan, findings)
    return fields


def _read_title(scan: Scan, findings: Findings) -> str:
    titles = [node for node in scan.nodes if node.name == "title"]
    if len(titles) != 1:
        findings.violation("title-count", f"{len(titles)} <title> elements; exactly one needed")
    title = collapse_whitespace(titles[0].text) if titles else ""
    if titles and not title:
        findings.violation("title-empty", "<title> has no text", titles[0].index)
    return title


def _memhtml_metas(scan: Scan) -> list[tuple[int, str, str]]:
    """(position, name, trimmed content) of every ``memhtml-*`` meta in the head."""
    found = []
    for node in scan.nodes:
        if node.name == "meta" and node.in_head:
            name = node.attrs.get("name")
            if name is not None and name.startswith(m.META_PREFIX):
                content = node.attrs.get("content") or ""
                found.append((node.index, name, content.strip(ASCII_WHITESPACE)))
    return found


def _read_metas(metas: list[tuple[int, str, str]], findings: Findings) -> dict[str, str]:
    """The first non-empty value of each known scalar meta."""
    values: dict[str, str] = {}
    seen: set[str] = set()
    for position, name, content in metas:
        if name not in m.META_RANK:
            findings.violation("meta-unknown", f"unknown meta {quoted(name)}", position)
            continue
        if name in m.REPEATABLE_METAS:
            continue
        if name in seen:
            findings.violation("meta-repeated", f"{name} appears more than once", position)
        elif content:
            # Empty content counts as absent (docs/format.md §2).
            values[name] = content
        seen.add(name)
    return values


def _repeated_values(metas: list[tuple[int, str, str]]) -> dict[str, list[str]]:
    """Non-blank trimmed values of each repeatable meta, in document order."""
    found: dict[str, list[str]] = {name: [] for name in m.REPEATABLE_METAS}
    for _, name, content in metas:
        if name in found and content:
            found[name].append(content)
    return found


def _required_fields(values: dict[str, str], findings: Findings) -> dict[str, str]:
    for rank, name in enumerate(m.REQUIRED_METAS):
        if name not in values:
            findings.violation("meta-missing", f"required meta {name} is absent or empty", rank)
    memory_type = values.get(m.TYPE, "")
    if memory_type and memory_type not in MEMORY_TYPES:
        findings.violation("type-invalid", f"{m.TYPE} is not one of the memory types")
    status = values.get(m.STATUS, "")
    if status and status not in (ACTIVE_STATUS, ARCHIVED_STATUS):
        findings.violation("status-invalid", f"{m.STATUS} is neither active nor archived")
    return {
        "memory_type": memory_type,
        "status": status,
        "created_at": values.get(m.CREATED, ""),
        "updated_at": values.get(m.UPDATED, ""),
    }


def _task_status(values: dict[str, str], memory_type: str, findings: Findings) -> str | None:
    task_status = values.get(m.TASK_STATUS)
    if task_status is not None and memory_type in MEMORY_TYPES and memory_type != TASK_TYPE:
        findings.violation("task-status-forbidden", f"only a task may carry {m.TASK_STATUS}")
    if task_status is not None and task_status not in TASK_STATUSES:
        findings.violation("task-status-invalid", f"{m.TASK_STATUS} is not a task status")
    if task_status is None and memory_type == TASK_TYPE:
        findings.violation("task-status-missing", f"a task needs {m.TASK_STATUS}")
    return task_status


def _read_links(scan: Scan, findings: Findings) -> tuple[Link, ...]:
    links: dict[Link, None] = {}
    for node in scan.nodes:
        if node.name != "link" or not node.in_head:
            continue
        token = (node.attrs.get("rel") or "").strip(ASCII_WHITESPACE)
        if not token.startswith(m.META_PREFIX):
            continue
        rel = token_to_rel(token)
        if rel is None:
            findings.violation(
                "link-rel", f"link rel {quoted(token)} is not a relation", node.index
            )
        href = node.attrs.get("href")
        target = None if href is None else link_target_of(href.strip(ASCII_WHITESPACE))
        if target is None:
            findings.violation(
                "link-href", f"link {quoted(token)} has a missing or bad href", node.index
            )
        if rel is not None and target is not None:
            links.setdefault(Link(rel, target), None)
    return tuple(links)
