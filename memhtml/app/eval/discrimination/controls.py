"""The three control families: near-twin claims that state a wrong fact, and their predicates.

A control is kept only when its own family's predicate holds between the target claim and
the flipped one, so a flip that changed nothing (or changed the wrong thing) never enters the
fixture and can never count as an inversion.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from enum import StrEnum
from typing import Final

from memhtml.app.eval.discrimination.topics import NEGATION_ANCHORS, QUALIFIERS
from memhtml.domain.polarity import is_negated


class Family(StrEnum):
    """A control family, named as the report names it."""

    NEGATION = "negation"
    NUMERIC = "numeric"
    VARIANT = "variant"


FAMILY_ORDER: Final[tuple[Family, ...]] = (Family.NEGATION, Family.NUMERIC, Family.VARIANT)
"""The order controls of one target are generated, written and reported in."""

FAMILY_TITLE_MARKERS: Final[dict[Family, str]] = {
    Family.NEGATION: "Disputed reading",
    Family.NUMERIC: "Alternate figure",
    Family.VARIANT: "Edition note",
}
"""The leading words of a control's title, before `` — `` and the target's title."""

TITLE_SEPARATOR: Final = " — "
NEGATION_WORD: Final = "not"
NEGATION_FALLBACK: Final = "It is not true that {claim}"
VARIANT_FALLBACK: Final = ", on the {qualifier} variant only."
SMALL_INTEGER_LIMIT: Final = 100
SMALL_INTEGER_STEP: Final = 10

# A standalone number: not glued to a word or to another number on either side.
_NUMBER: Final = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?!\w)")
_WORD: Final = re.compile(r"[^\W_]+")


def control_title(family: Family, target_title: str) -> str:
    """``<family marker> — <target title>``."""
    return FAMILY_TITLE_MARKERS[family] + TITLE_SEPARATOR + target_title


def negate(claim: str) -> str:
    """Insert ``not`` after the first auxiliary found, trying :data:`NEGATION_ANCHORS` in
    order; with none, prefix ``It is not true that``."""
    for anchor in NEGATION_ANCHORS:
        match = re.search(rf"\b{anchor}\b", claim, flags=re.IGNORECASE)
        if match is not None:
            return f"{claim[: match.end()]} {NEGATION_WORD}{claim[match.end() :]}"
    lowered = claim[:1].lower() + claim[1:]
    return NEGATION_FALLBACK.format(claim=lowered)


def renumber(claim: str) -> str | None:
    """The first number ``n`` becomes ``n + 10`` when an integer below 100, else ``2n``.

    Returns:
        The flipped claim, or None when the claim holds no number (no numeric control).
    """
    match = _NUMBER.search(claim)
    if match is None:
        return None
    text = match[0]
    if "." not in text and int(text) < SMALL_INTEGER_LIMIT:
        flipped = str(int(text) + SMALL_INTEGER_STEP)
    elif "." not in text:
        flipped = str(2 * int(text))
    else:
        flipped = _plain_decimal(2 * float(text))
    return claim[: match.start()] + flipped + claim[match.end() :]


def _plain_decimal(value: float) -> str:
    text = repr(value)
    return text.removesuffix(".0") if text.endswith(".0") else text


def qualifier_for(path: str) -> str:
    """The variant qualifier of a target: its path's code-point sum mod 5 picks one."""
    return QUALIFIERS[sum(map(ord, path)) % len(QUALIFIERS)]


def qualify(claim: str, anchor: str, qualifier: str) -> str:
    """Insert ``qualifier`` after the first whole-word ``anchor``; with none, append
    ``, on the <qualifier> variant only.``"""
    match = re.search(rf"\b{re.escape(anchor)}\b", claim, flags=re.IGNORECASE)
    if match is None:
        return claim.rstrip(".") + VARIANT_FALLBACK.format(qualifier=qualifier)
    return f"{claim[: match.end()]} {qualifier}{claim[match.end() :]}"


def numbers_of(text: str) -> frozenset[str]:
    """The numeric tokens of ``text``."""
    return frozenset(match[0] for match in _NUMBER.finditer(text))


def qualifiers_of(text: str) -> frozenset[str]:
    """The variant qualifiers ``text`` holds as whole lowercase words."""
    return frozenset(w for w in _WORD.findall(text.lower()) if w in QUALIFIERS)


def negation_holds(target: str, control: str) -> bool:
    """A negation marker on exactly one side."""
    return is_negated(target) != is_negated(control)


def numeric_holds(target: str, control: str) -> bool:
    """The numeric token sets differ."""
    return numbers_of(target) != numbers_of(control)


def variant_holds(target: str, control: str) -> bool:
    """The qualifier sets differ."""
    return qualifiers_of(target) != qualifiers_of(control)


PREDICATES: Final[dict[Family, Callable[[str, str], bool]]] = {
    Family.NEGATION: negation_holds,
    Family.NUMERIC: numeric_holds,
    Family.VARIANT: variant_holds,
}


def control_claims(claim: str, anchor: str, path: str) -> tuple[tuple[Family, str], ...]:
    """The validated flipped claims of a target, in :data:`FAMILY_ORDER`.

    A family whose flip does not exist (no number) or whose predicate fails is left out.
    """
    flips: dict[Family, str | None] = {
        Family.NEGATION: negate(claim),
        Family.NUMERIC: renumber(claim),
        Family.VARIANT: qualify(claim, anchor, qualifier_for(path)),
    }
    kept: list[tuple[Family, str]] = []
    for family in FAMILY_ORDER:
        flipped = flips[family]
        if flipped is not None and PREDICATES[family](claim, flipped):
            kept.append((family, flipped))
    return tuple(kept)
