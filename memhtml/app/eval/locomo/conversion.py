"""A LoCoMo conversation as ``apply`` write ops (docs/evaluation.md §B.2), pure.

The stores are built through the real write path, so a conversation becomes the same checked
ops a person's JSONL batch would: one per turn (the default), or one per session. Every op names
an explicit path with ``strict_path``, so the harness knows each file's path before the batch
runs and a refused path fails the batch instead of being placed somewhere unexpected.
"""

from __future__ import annotations

import datetime as dt
import html
from collections.abc import Mapping
from typing import Final, Literal

import attrs

from memhtml.app.apply_ops import WriteOp
from memhtml.app.eval.locomo.dataset import Conversation, Session, Turn
from memhtml.domain.paths import slugify
from memhtml.domain.write_requests import WriteRequest, checked

Granularity = Literal["turn", "session"]

STORE_AREA: Final = "areas/locomo"
TAG: Final = "locomo"
MEMORY_TYPE: Final = "episodic"
GRANULARITIES: Final[tuple[Granularity, ...]] = ("turn", "session")


@attrs.frozen(kw_only=True)
class StoredItem:
    """What one written file stands for: a turn (``dia_id`` set) or a whole session."""

    path: str
    session: int
    dia_id: str | None = None


@attrs.frozen(kw_only=True)
class ConvertedConversation:
    """The batch for one conversation's store and the map from its paths back to the data."""

    ops: tuple[WriteOp, ...]
    items: tuple[StoredItem, ...]

    def by_path(self) -> Mapping[str, StoredItem]:
        """Each written path's item, to map search hits back to turns and sessions."""
        return {item.path: item for item in self.items}


def utc_stamp(instant: dt.datetime) -> str:
    """``YYYY-MM-DDTHH:MM:SSZ``, the form the writer stores (docs/decisions.md §2)."""
    return instant.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def turn_path(sample_id: str, session: int, position: int) -> str:
    """``areas/locomo/<conv>/s<NN>/t<NNN>.html``."""
    return f"{STORE_AREA}/{slugify(sample_id)}/s{session:02d}/t{position:03d}.html"


def session_path(sample_id: str, session: int) -> str:
    """``areas/locomo/<conv>/s<NN>.html``."""
    return f"{STORE_AREA}/{slugify(sample_id)}/s{session:02d}.html"


def session_id(sample_id: str, session: int) -> str:
    """The ``memhtml-session`` of a session's turns: what an agent records for the turns of
    one conversation, so the contextual documents can pair each turn with the one before."""
    return f"{slugify(sample_id)}-s{session:02d}"


def turn_request(sample_id: str, session: Session, turn: Turn) -> WriteRequest:
    """One turn as an episodic memory.

    ``event_at`` is the session's start plus one second per earlier turn: it keeps the turns in
    order, and it is what separates turns with the same words ("Take care!") that would
    otherwise dedup onto each other.
    """
    caption = () if turn.blip_caption is None else (f"Shared a photo: {turn.blip_caption}.",)
    event_at = session.started_at + dt.timedelta(seconds=turn.position - 1)
    return checked(
        WriteRequest(
            title=f"{turn.speaker}, session {session.number} turn {turn.position}",
            memory_type=MEMORY_TYPE,
            claim=turn.text,
            body=caption,
            path=turn_path(sample_id, session.number, turn.position),
            strict_path=True,
            tags=(TAG,),
            entities=(f"person:{slugify(turn.speaker)}",),
            event_at=utc_stamp(event_at),
            session_id=session_id(sample_id, session.number),
        )
    )


def session_article(conversation: Conversation, session: Session) -> str:
    """The session memory's article: the claim, a ``<time>`` paragraph, one ``<li>`` per turn.

    The indexer chunks it at 1,800 UTF-16 units like any other long article.
    """
    day = f"{session.started_at.day} {session.started_at:%B %Y}"
    claim = (
        f"Session {session.number} between {conversation.speaker_a} and "
        f"{conversation.speaker_b} on {day}."
    )
    items = "".join(
        f"<li>{html.escape(turn.speaker)}: {html.escape(turn.text)}</li>" for turn in session.turns
    )
    stamp = utc_stamp(session.started_at)
    return (
        f"<p><mark>{html.escape(claim)}</mark></p>"
        f'<p><time datetime="{stamp}">{day}, {session.started_at:%H:%M}</time></p>'
        f"<ul>{items}</ul>"
    )


def session_request(conversation: Conversation, session: Session) -> WriteRequest:
    """One session as an episodic memory whose article lists every turn."""
    speakers = (conversation.speaker_a, conversation.speaker_b)
    return checked(
        WriteRequest(
            title=f"{speakers[0]} and {speakers[1]}, session {session.number}",
            memory_type=MEMORY_TYPE,
            article_html=session_article(conversation, session),
            path=session_path(conversation.sample_id, session.number),
            strict_path=True,
            tags=(TAG,),
            entities=tuple(f"person:{slugify(name)}" for name in dict.fromkeys(speakers)),
        )
    )


def convert(conversation: Conversation, granularity: Granularity) -> ConvertedConversation:
    """The write ops of one conversation's store, numbered from line 1 as a batch would be."""
    requests: list[tuple[WriteRequest, StoredItem]] = []
    for session in conversation.sessions:
        if granularity == "session":
            request = session_request(conversation, session)
            requests.append((request, StoredItem(path=str(request.path), session=session.number)))
            continue
        for turn in session.turns:
            request = turn_request(conversation.sample_id, session, turn)
            item = StoredItem(path=str(request.path), session=session.number, dia_id=turn.dia_id)
            requests.append((request, item))
    return ConvertedConversation(
        ops=tuple(
            WriteOp(line=number, request=request)
            for number, (request, _) in enumerate(requests, start=1)
        ),
        items=tuple(item for _, item in requests),
    )
