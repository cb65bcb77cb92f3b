"""The ranking switches every search path takes (docs/decisions.md §12), declared once.

``search``, ``recall``, ``eval discriminate`` and ``eval locomo`` all wear
:func:`ranking_options`; their bodies receive one ``ranking`` argument (a ``RankingOptions``)
instead of the flags, so a new lever is one option here and one field there.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final, TypeVar

import click

from memhtml.domain.errors import InvalidInput
from memhtml.domain.feedback import (
    FEEDBACK_DEPTH_DEFAULT,
    FEEDBACK_PICK_DEFAULT,
    FEEDBACK_PICKS,
    FEEDBACK_SOURCE_DEFAULT,
    FEEDBACK_SOURCES,
    FEEDBACK_WEIGHT_DEFAULT,
    MAX_FEEDBACK_DEPTH,
)
from memhtml.domain.fusion import PRIOR_BOUND, RANK_ARMS, RRF_K
from memhtml.domain.mmr import MMR_LAMBDA, MMR_RELEVANCE_DEFAULT

if TYPE_CHECKING:
    from memhtml.ports.retrieval import RankingOptions

F = TypeVar("F", bound=Callable[..., Any])

LIST_SEPARATOR: Final = ","
WEIGHT_SEPARATOR: Final = "="
# The flags' parameter names, taken out of the command's keyword arguments.
FLAG_NAMES: Final = (
    "arms",
    "gate_priors",
    "rrf_k",
    "weights",
    "fts_stopwords",
    "evidence_first",
    "vector_floor",
    "mmr_lambda",
    "mmr_relevance",
    "mmr_text",
    "authority",
    "prior_bound",
    "prf_depth",
    "prf_weight",
    "prf_pick",
    "prf_source",
)


class PriorBound(click.ParamType[float | None]):
    """A number >= 0, or ``off`` (``None``: the priors are added like any arm)."""

    name = "number|off"

    def convert(
        self, value: object, param: click.Parameter | None, ctx: click.Context | None
    ) -> float | None:
        """``off`` → ``None``; else a finite number >= 0."""
        if value is None or isinstance(value, float):
            return value
        text = str(value).strip().lower()
        if text == "off":
            return None
        try:
            number = float(text)
        except ValueError:
            self.fail(f"{value!r} is neither a number nor 'off'", param, ctx)
        if not (math.isfinite(number) and number >= 0):
            self.fail(f"{value!r} is not a finite number >= 0", param, ctx)
        return number


PRIOR_BOUND_TYPE: Final = PriorBound()
PRIOR_BOUND_DEFAULT: Final = "off" if PRIOR_BOUND is None else str(PRIOR_BOUND)


def ranking_options(command: F) -> F:
    """Add the ranking flags to a command and hand its body ``ranking=RankingOptions(...)``."""

    @functools.wraps(command)
    def with_ranking(*args: Any, **kwargs: Any) -> Any:
        flags = {name: kwargs.pop(name) for name in FLAG_NAMES}
        kwargs["ranking"] = ranking_from(**flags)
        return command(*args, **kwargs)

    decorators = [
        click.option(
            "--arms",
            help="Comma-separated arms to run: "
            + ",".join(arm.name for arm in RANK_ARMS)
            + " (default: all but the opt-in "
            + ", ".join(arm.name for arm in RANK_ARMS if not arm.default)
            + ", run only when named).",
        ),
        click.option(
            "--gate-priors/--no-gate-priors",
            default=False,
            help="Rank recency and salience only over the query arms' candidates.",
        ),
        click.option(
            "--rrf-k",
            type=click.FloatRange(min=0),
            default=RRF_K,
            show_default=True,
            help="The reciprocal rank fusion constant.",
        ),
        click.option(
            "--weights",
            help="Per-arm weights, e.g. fts=1,vector=0.5,entity=1,graph=0.5.",
        ),
        click.option(
            "--fts-stopwords/--no-fts-stopwords",
            default=True,
            show_default=True,
            help="Drop English function words from the lexical query.",
        ),
        click.option(
            "--evidence-first/--no-evidence-first",
            default=False,
            show_default=True,
            help="Rank memories a query arm found above memories only recency or salience found.",
        ),
        click.option(
            "--vector-floor",
            type=click.FloatRange(-1, 1),
            default=None,
            help="Least cosine similarity the vector arm needs to rank a memory.",
        ),
        click.option(
            "--mmr-lambda",
            type=click.FloatRange(0, 1),
            default=MMR_LAMBDA,
            show_default=True,
            help="MMR's relevance weight; 1 turns diversification off.",
        ),
        click.option(
            "--mmr-relevance",
            type=click.Choice(("rank", "fused")),
            default=MMR_RELEVANCE_DEFAULT,
            show_default=True,
            help="What MMR reads as relevance: the order (rank) or the fused score.",
        ),
        click.option(
            "--prior-bound",
            type=PRIOR_BOUND_TYPE,
            default=PRIOR_BOUND_DEFAULT,
            show_default=True,
            help="Recency and salience as a tie-breaker worth at most this share of a score; "
            "'off' adds them as arms instead.",
        ),
        click.option(
            "--mmr-text/--no-mmr-text",
            default=False,
            show_default=True,
            help="Compare memories without a vector by their words during MMR.",
        ),
        click.option(
            "--authority/--no-authority",
            default=False,
            show_default=True,
            help="Move near-ties by memory kind, importance, confidence, pin and tags (±10 %).",
        ),
        click.option(
            "--prf-depth",
            type=click.IntRange(0, MAX_FEEDBACK_DEPTH),
            default=FEEDBACK_DEPTH_DEFAULT,
            show_default=True,
            help="Pseudo-relevance feedback: move the query vector toward the top N memories "
            "of --prf-source; 0 leaves it where it is.",
        ),
        click.option(
            "--prf-source",
            type=click.Choice(FEEDBACK_SOURCES),
            default=FEEDBACK_SOURCE_DEFAULT,
            show_default=True,
            help="Whose top memories feedback reads: the words' best matches (one fusion), or "
            "a first fusion's (the fusion runs twice).",
        ),
        click.option(
            "--prf-weight",
            type=click.FloatRange(min=0),
            default=FEEDBACK_WEIGHT_DEFAULT,
            show_default=True,
            help="How far feedback moves the query vector (Rocchio's beta).",
        ),
        click.option(
            "--prf-pick",
            type=click.Choice(FEEDBACK_PICKS),
            default=FEEDBACK_PICK_DEFAULT,
            show_default=True,
            help="Which vector a memory gives feedback: its chunk nearest the query, or the "
            "mean of its chunks.",
        ),
    ]
    wrapped: Any = with_ranking
    for decorator in reversed(decorators):
        wrapped = decorator(wrapped)
    return wrapped  # type: ignore[no-any-return]


def ranking_from(
    *,
    arms: str | None,
    gate_priors: bool,
    rrf_k: float,
    weights: str | None,
    fts_stopwords: bool,
    evidence_first: bool,
    vector_floor: float | None,
    mmr_lambda: float,
    mmr_relevance: str,
    mmr_text: bool,
    prior_bound: float | None,
    authority: bool = False,
    prf_depth: int = FEEDBACK_DEPTH_DEFAULT,
    prf_weight: float = FEEDBACK_WEIGHT_DEFAULT,
    prf_pick: str = FEEDBACK_PICK_DEFAULT,
    prf_source: str = FEEDBACK_SOURCE_DEFAULT,
) -> RankingOptions:
    """The flags as one ``RankingOptions``.

    Raises:
        InvalidInput: An unknown arm, a malformed weight list, or a value out of range.
    """
    from memhtml.ports.retrieval import RankingOptions

    return RankingOptions(
        arms=parse_arms(arms),
        gate_priors=gate_priors,
        rrf_k=rrf_k,
        weights=parse_weights(weights),
        fts_stopwords=fts_stopwords,
        evidence_first=evidence_first,
        vector_floor=vector_floor,
        mmr_lambda=mmr_lambda,
        mmr_relevance=mmr_relevance,
        mmr_text=mmr_text,
        authority=authority,
        prior_bound=prior_bound,
        prf_depth=prf_depth,
        prf_weight=prf_weight,
        prf_pick=prf_pick,
        prf_source=prf_source,
    )


def parse_arms(text: str | None) -> tuple[str, ...] | None:
    """``fts,vector`` → ``("fts", "vector")``; ``None`` (every arm) when not given.

    Raises:
        InvalidInput: The list names no arm.
    """
    if text is None:
        return None
    names = tuple(name.strip() for name in text.split(LIST_SEPARATOR) if name.strip())
    if not names:
        raise InvalidInput("--arms names no arm")
    return names


def parse_weights(text: str | None) -> tuple[tuple[str, float], ...]:
    """``fts=1,recency=0.5`` → ``(("fts", 1.0), ("recency", 0.5))``, in the order given.

    Raises:
        InvalidInput: An item without ``=``, or a weight that is not a number.
    """
    if text is None:
        return ()
    pairs: list[tuple[str, float]] = []
    for item in (part.strip() for part in text.split(LIST_SEPARATOR)):
        if not item:
            continue
        name, separator, raw = item.partition(WEIGHT_SEPARATOR)
        try:
            weight = float(raw)
        except ValueError:
            weight = None
        if not separator or not name.strip() or weight is None:
            raise InvalidInput(f"--weights expects arm=number items, got {item!r}")
        pairs.append((name.strip(), weight))
    return tuple(pairs)
