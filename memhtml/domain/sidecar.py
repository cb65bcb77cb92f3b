"""The sidecar ``.memhtml/state/access.jsonl``: the durable copy of the access table
(docs/index-schema.md §4).

Rendering is byte-stable (equal tables render equal bytes) and parsing survives torn lines, so
the file can live in git beside the memories and be replayed into a rebuilt state plane.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from typing import Final

import attrs

from memhtml.domain.reinforce import AccessRow

SIDECAR_PATH: Final = ".memhtml/state/access.jsonl"
"""Where the state plane's committed copy lives in the repository."""

SIDECAR_PRECISION: Final = 4
"""Decimal places every float in the sidecar carries."""

SIDECAR_KEYS: Final[tuple[str, ...]] = (
    "path",
    "accessCount",
    "reinforcementCount",
    "outcomeScore",
    "lastAccessedAt",
    "lastReinforcedAt",
    "updatedAt",
)
"""The fields of one sidecar line, in the order they are written (docs/index-schema.md §4)."""


@attrs.frozen(kw_only=True)
class SidecarParse:
    """What a sidecar file holds: its readable rows in file order and the torn lines skipped."""

    rows: tuple[AccessRow, ...]
    skipped: int


def round4(value: float) -> float:
    """``value`` on the sidecar's 4-decimal grid, halves toward +∞, ``-0`` written as ``0``.

    Halves round up rather than to even because the original tool's arithmetic did, so a plane
    exported by either renders the same bytes. ``math.floor`` returns an int, and an int zero
    divides to ``+0.0``, which is what keeps two equal planes (one holding ``-0``) byte-equal.
    """
    scale = 10**SIDECAR_PRECISION
    return math.floor(value * scale + 0.5) / scale


def sidecar_number(value: float) -> int | float:
    """``value`` rounded by :func:`round4`, as an int when integral (``1``, never ``1.0``)."""
    rounded = round4(value)
    return int(rounded) if rounded.is_integer() else rounded


def to_sidecar_entry(row: AccessRow) -> dict[str, object]:
    """One access row as the JSON object of its sidecar line, keys in :data:`SIDECAR_KEYS` order."""
    values = (
        row.path,
        row.access_count,
        row.reinforcement_count,
        sidecar_number(row.outcome_score),
        row.last_accessed_at,
        row.last_reinforced_at,
        row.updated_at,
    )
    return dict(zip(SIDECAR_KEYS, values, strict=True))


def from_sidecar_entry(entry: object) -> AccessRow | None:
    """The access row one decoded sidecar line describes, or None when it is not one.

    Refused: a non-object, a missing or unknown key, a wrong type, a negative count, an outcome
    outside [-1, 1] or not finite. Every one of those would fail the table's CHECKs on insert.
    """
    if not isinstance(entry, dict) or set(entry) != set(SIDECAR_KEYS):
        return None
    path, updated_at = entry["path"], entry["updatedAt"]
    counts = (_count(entry["accessCount"]), _count(entry["reinforcementCount"]))
    outcome = entry["outcomeScore"]
    stamps = (entry["lastAccessedAt"], entry["lastReinforcedAt"])
    if not (isinstance(path, str) and path and isinstance(updated_at, str)):
        return None
    if counts[0] is None or counts[1] is None:
        return None
    if isinstance(outcome, bool) or not isinstance(outcome, int | float):
        return None
    if not (math.isfinite(outcome) and -1.0 <= outcome <= 1.0):
        return None
    if not all(stamp is None or isinstance(stamp, str) for stamp in stamps):
        return None
    return AccessRow(
        path=path,
        access_count=counts[0],
        reinforcement_count=counts[1],
        outcome_score=float(outcome),
        last_accessed_at=stamps[0],
        last_reinforced_at=stamps[1],
        updated_at=updated_at,
    )


def render_sidecar(rows: Iterable[AccessRow]) -> str:
    """The whole sidecar: one compact JSON object per row, sorted by path, newline-terminated.

    JSON Lines rather than one array, so a torn write costs one row and ``git diff`` shows one
    line per changed memory. Equal tables render equal bytes. No rows render as ``""``.
    """
    return "".join(
        json.dumps(to_sidecar_entry(row), ensure_ascii=False, separators=(",", ":")) + "\n"
        for row in sorted(rows, key=lambda row: row.path)
    )


def parse_sidecar(text: str) -> SidecarParse:
    """The rows a sidecar holds, skipping and counting every line that is not one.

    A torn line is counted rather than fatal: the sidecar is the plane's only durable copy, and
    refusing a truncated file would turn the loss of one row into the loss of all. Blank lines
    are neither rows nor damage. A path listed twice yields two rows; the importer merges them.
    """
    rows: list[AccessRow] = []
    skipped = 0
    for line in text.splitlines():
        if not line.strip():
            continue
        try:
            row = from_sidecar_entry(json.loads(line))
        except (ValueError, RecursionError):  # torn JSON, or nesting too deep to decode
            row = None
        if row is None:
            skipped += 1
        else:
            rows.append(row)
    return SidecarParse(rows=tuple(rows), skipped=skipped)


def _count(value: object) -> int | None:
    """A non-negative integer count, accepting an integral float; None otherwise."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, float) and not value.is_integer():
        return None
    return int(value) if value >= 0 else None
