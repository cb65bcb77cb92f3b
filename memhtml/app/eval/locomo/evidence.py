"""Evidence normalisation (docs/evaluation.md §B.3): raw evidence strings → the turn ids that
are gold.

Nine evidence strings in LoCoMo are malformed: several ids in one string, ``D:11:26``,
``D30:05``, a bare ``D``, and ids of turns that do not exist. Scoring them verbatim would make
some gold unreachable and count it as a miss, so every string goes through one rule, and every
change the rule makes is reported back so the run's output can list it.

Pure: no I/O, no dataset access; the caller passes the conversation's turn ids.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from typing import Final, Literal

import attrs

FixKind = Literal["split", "rewritten", "unparseable", "absent", "duplicate"]

_SEPARATORS: Final = re.compile(r"[;,\s]+")
_TURN_ID: Final = re.compile(r"D:?([0-9]+):([0-9]+)")


@attrs.frozen(kw_only=True)
class EvidenceFix:
    """One change the normaliser made.

    Attributes:
        kind: ``split`` (one string held several tokens), ``rewritten`` (a token spelled a turn
            id another way: ``D:11:26``, ``D30:05``), ``unparseable`` (a token that names no turn,
            dropped), ``absent`` (a turn id the conversation lacks, dropped), ``duplicate``
            (an id already listed, dropped).
        raw: The string or token the fix applies to.
        result: What it became: the tokens of a split, the canonical id of a rewrite, and
            nothing for a drop.
    """

    kind: FixKind
    raw: str
    result: tuple[str, ...] = ()


@attrs.frozen(kw_only=True)
class NormalisedEvidence:
    """The gold turn ids in first-mention order, and the fixes that produced them."""

    dia_ids: tuple[str, ...]
    fixes: tuple[EvidenceFix, ...]


def canonical_turn_id(token: str) -> str | None:
    """``D<int>:<int>`` for a token that spells a turn id (``D:11:26``, ``D30:05``), else None."""
    match = _TURN_ID.fullmatch(token)
    if match is None:
        return None
    return f"D{int(match.group(1))}:{int(match.group(2))}"


def normalise_evidence(raw: Iterable[str], known_ids: Collection[str]) -> NormalisedEvidence:
    """Split, canonicalise, drop and dedupe ``raw`` evidence (docs/evaluation.md §B.3).

    Each string is split on runs of ``;``, ``,`` and whitespace; each token is mapped by
    ``^D:?(\\d+):(\\d+)$`` to ``D<int>:<int>``; tokens that do not match, and ids not in
    ``known_ids``, are dropped; repeats are dropped keeping the first. Normalising the result
    again changes nothing and reports no fix.

    Args:
        raw: The QA item's evidence strings, in order.
        known_ids: Every turn id of the conversation.
    """
    dia_ids: list[str] = []
    fixes: list[EvidenceFix] = []
    for entry in raw:
        tokens = tuple(token for token in _SEPARATORS.split(entry) if token)
        if len(tokens) > 1:
            fixes.append(EvidenceFix(kind="split", raw=entry, result=tokens))
        for token in tokens:
            dia_id = canonical_turn_id(token)
            if dia_id is None:
                fixes.append(EvidenceFix(kind="unparseable", raw=token))
                continue
            if dia_id != token:
                fixes.append(EvidenceFix(kind="rewritten", raw=token, result=(dia_id,)))
            if dia_id not in known_ids:
                fixes.append(EvidenceFix(kind="absent", raw=dia_id))
            elif dia_id in dia_ids:
                fixes.append(EvidenceFix(kind="duplicate", raw=dia_id))
            else:
                dia_ids.append(dia_id)
    return NormalisedEvidence(dia_ids=tuple(dia_ids), fixes=tuple(fixes))


def session_of(dia_id: str) -> int:
    """The session number of a canonical turn id (``D12:3`` → 12).

    Raises:
        ValueError: ``dia_id`` is not canonical.
    """
    canonical = canonical_turn_id(dia_id)
    if canonical is None or canonical != dia_id:
        raise ValueError(f"not a canonical turn id: {dia_id!r}")
    return int(dia_id[1:].split(":", 1)[0])
