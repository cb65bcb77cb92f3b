"""What a caller asks to write, checked once, and the renderer's inputs it becomes.

``write``, ``correct`` and every ``apply`` write op share this value, so the three cannot drift
on which combinations of claim, body and article they accept.
"""

from __future__ import annotations

import re
from typing import Final

import attrs

from memhtml.domain.control_chars import first_refused_control
from memhtml.domain.errors import InvalidInput
from memhtml.domain.model import Link, RenderInputs
from memhtml.domain.user_instants import normalize_user_instant
from memhtml.domain.vocabulary import ARC_TYPE, WRITABLE_TYPES

# A sentence ends at `.`, `!` or `?` followed by whitespace, the seam the chunker also uses.
_SENTENCE_SEAM: Final = re.compile(r"(?<=[.!?])[ \t\n\f\r]+")
# A blank line: a newline, optional spaces or tabs, another newline.
_BLANK_LINE: Final = re.compile(r"\n[ \t\f\r]*\n")


@attrs.frozen(kw_only=True)
class WriteRequest:
    """One memory a caller wants written.

    The article is ``claim`` with ``body`` paragraphs, ``body`` alone (its first sentence
    becomes the claim), or ``article_html``.

    Attributes:
        title: The ``<title>``; also the file's slug.
        memory_type: One of the nine writable types.
        claim: The ``<mark>`` sentence.
        body: Paragraphs after the claim, one ``<p>`` each.
        article_html: The article's inner HTML instead of claim and body.
        path: An explicit repo path (docs/format.md §11 rule 1).
        strict_path: Refuse an unusable ``path`` instead of ignoring it.
        workspace, tags, entities: Routing and repeatable metas; entities as ``type:name``.
        importance, confidence: Optional metas; ``None`` leaves the reader's default.
        event_at, valid_from: Caller instants (docs/format.md §5), normalised by :func:`checked`.
        session_id, prompt_id, turn_uuid: Metas and commit trailers.
        pinned: Write ``memhtml-pinned`` (the authority step's pin).
    """

    title: str
    memory_type: str
    claim: str | None = None
    body: tuple[str, ...] = ()
    article_html: str | None = None
    path: str | None = None
    strict_path: bool = False
    workspace: str | None = None
    tags: tuple[str, ...] = ()
    entities: tuple[str, ...] = ()
    importance: int | None = None
    confidence: float | None = None
    event_at: str | None = None
    valid_from: str | None = None
    session_id: str | None = None
    prompt_id: str | None = None
    turn_uuid: str | None = None
    pinned: bool = False


def checked(request: WriteRequest) -> WriteRequest:
    """``request`` validated, with its instants normalised (docs/decisions.md §2).

    Raises:
        InvalidInput: a type outside the nine writable ones (``arc`` included); no claim,
            body or article, or an article beside a claim, body or event time; a malformed
            instant; a control character in the title, the claim, a tag or an entity.
    """
    if request.memory_type == ARC_TYPE:
        raise InvalidInput("type arc is written by sleep only; choose another type")
    if request.memory_type not in WRITABLE_TYPES:
        raise InvalidInput(
            f"type must be one of {', '.join(WRITABLE_TYPES)}, not {request.memory_type!r}"
        )
    if request.article_html is not None:
        if request.claim is not None or request.body:
            raise InvalidInput("give either article_html or a claim with body paragraphs")
        if request.event_at is not None:
            raise InvalidInput("an event time is appended to a claim only, not to article_html")
    elif request.claim is None and not request.body:
        raise InvalidInput("give a claim, a body or article_html")
    _refuse_controls(request)
    return attrs.evolve(
        request,
        event_at=_instant(request.event_at, "event_at"),
        valid_from=_instant(request.valid_from, "valid_from"),
    )


def _refuse_controls(request: WriteRequest) -> None:
    """Terminal escapes in printed and committed fields (issue 14); the parser refuses the
    same characters in a file, so a write and a file from git agree."""
    claim = request.claim
    if claim is None and request.article_html is None:
        claim = split_claim(request.body)[0]
    fields = {
        "title": (request.title,),
        "claim": (claim or "",),
        "tag": request.tags,
        "entity": request.entities,
    }
    for field, values in fields.items():
        for value in values:
            found = first_refused_control(value)
            if found is not None:
                raise InvalidInput(
                    f"{field} holds control character {found}; terminal escapes and other "
                    "controls are refused (tab, newline and carriage return are fine)"
                )


def _instant(value: str | None, label: str) -> str | None:
    return None if value is None else normalize_user_instant(value, label)


def split_claim(body: tuple[str, ...]) -> tuple[str, tuple[str, ...]]:
    """The claim and paragraphs of a body given without a claim.

    The first sentence of the first item is the claim; the rest of that item's first
    paragraph stays beside the claim; every later blank-line-separated paragraph, and every
    later item, is a paragraph of its own. Only whitespace is ever cut, so the words and their
    order are kept.

    Args:
        body: The caller's body: one string or several.
    """
    if not body:
        return "", ()
    first, *others = _BLANK_LINE.split(body[0].strip(" \t\n\f\r"))
    seam = _SENTENCE_SEAM.search(first)
    claim, rest = (first, "") if seam is None else (first[: seam.start()], first[seam.end() :])
    paragraphs = ([rest] if rest else []) + others + list(body[1:])
    return claim, tuple(paragraphs)


def render_inputs(
    request: WriteRequest,
    *,
    now: str,
    links: tuple[Link, ...] = (),
    valid_from: str | None = None,
) -> RenderInputs:
    """The renderer's inputs for a checked request written at ``now``.

    Args:
        request: A request that went through :func:`checked`.
        now: The write instant, a UTC stamp: both ``created`` and ``updated``.
        links: Head links to write (a correction's ``supersedes``).
        valid_from: Overrides the request's own value (a correction stamps its boundary).
    """
    claim, body = request.claim, request.body
    if request.article_html is None and claim is None:
        claim, body = split_claim(body)
    return RenderInputs(
        title=request.title,
        memory_type=request.memory_type,
        created_at=now,
        updated_at=now,
        claim=claim or "",
        body=body,
        article_html=request.article_html,
        tags=request.tags,
        entities=request.entities,
        links=links,
        importance=request.importance,
        confidence=request.confidence,
        session_id=request.session_id,
        prompt_id=request.prompt_id,
        turn_uuid=request.turn_uuid,
        event_at=request.event_at,
        valid_from=valid_from if valid_from is not None else request.valid_from,
        pinned=request.pinned,
    )
