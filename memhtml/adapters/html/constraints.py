"""The constraint codes and the order findings are reported in (docs/format.md §10).

Checks run all together and never stop at the first failure, so each check only *adds* a
finding with its table row and document position; ``Findings.sorted`` puts them in table order,
document order within a row, and drops exact repeats. A writer then sees every problem at once.
"""

from __future__ import annotations

from typing import Final

from memhtml.domain.findings import Finding

# Violation code → its row in the docs/format.md §10 table.
VIOLATION_ROWS: Final[dict[str, int]] = {
    "title-count": 1,
    "title-empty": 1,
    "meta-missing": 2,
    "meta-unknown": 3,
    "meta-repeated": 3,
    "article-count": 4,
    "mark-count": 5,
    "mark-empty": 6,
    "mark-in-aside": 7,
    "mark-in-details": 7,
    "mark-position": 8,
    "time-datetime": 9,
    "forbidden-element": 10,
    "forbidden-attribute": 10,
    "event-handler": 10,
    "element-not-allowed": 10,
    "attribute-not-allowed": 10,
    "url-scheme": 10,
    "link-rel": 11,
    "link-href": 11,
    "type-invalid": 12,
    "status-invalid": 12,
    "task-status-forbidden": 13,
    "task-status-invalid": 13,
    "task-status-missing": 13,
    "due-invalid": 14,
    "date-invalid": 14,
    # Issue 14: terminal escapes in the fields that are printed and committed.
    "control-character": 15,
}
# Warnings never block. `meta-malformed` (docs/decisions.md §18) comes first because it concerns the
# head, which the reader meets before the body the others describe. docs/format.md's
# `unknown-element` warning (row 1) is now the `element-not-allowed` violation (issue 14).
WARNING_ROWS: Final[dict[str, int]] = {
    "meta-malformed": 0,
    "scoped-element": 2,
    "lang-token": 3,
}
# Short enough for a log line; a detail names markup, never quotes memory prose at length.
MAX_DETAIL_VALUE_CHARS: Final = 40


def quoted(value: str) -> str:
    """A name or token for a finding's detail, cut to ``MAX_DETAIL_VALUE_CHARS``."""
    if len(value) > MAX_DETAIL_VALUE_CHARS:
        value = value[:MAX_DETAIL_VALUE_CHARS] + "…"
    return repr(value)


class Findings:
    """Collects violations and warnings as they are found, in any order."""

    def __init__(self) -> None:
        self._violations: list[tuple[int, tuple[int, ...], Finding]] = []
        self._warnings: list[tuple[int, tuple[int, ...], Finding]] = []

    def violation(self, code: str, detail: str, *position: int) -> None:
        """Record a violation at ``position`` (document order; earlier sorts first)."""
        self._violations.append((VIOLATION_ROWS[code], position, Finding(code=code, detail=detail)))

    def warning(self, code: str, detail: str, *position: int) -> None:
        """Record a warning at ``position``."""
        self._warnings.append((WARNING_ROWS[code], position, Finding(code=code, detail=detail)))

    @property
    def has_violations(self) -> bool:
        """Whether any violation was recorded."""
        return bool(self._violations)

    def violations(self) -> tuple[Finding, ...]:
        """Violations in table order, document order within a row, repeats dropped."""
        return _ordered(self._violations)

    def warnings(self) -> tuple[Finding, ...]:
        """Warnings in table order, document order within a row, repeats dropped."""
        return _ordered(self._warnings)


def _ordered(found: list[tuple[int, tuple[int, ...], Finding]]) -> tuple[Finding, ...]:
    # sorted() is stable, so findings at one position keep the order they were added in.
    ordered = sorted(found, key=lambda item: (item[0], item[1]))
    return tuple(dict.fromkeys(finding for _, _, finding in ordered))
