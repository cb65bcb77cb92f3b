"""The contextual lexical document: what the ``context`` arm's full-text entry holds.

A memory's own full-text document (title, claim, body) often lacks the words a question uses:
a conversational turn answers "Yes, the one from the lake" and the question names the lake
trip the turn before it described. The context document is the memory's own text followed by
what surrounds it, and it is indexed apart from the own text so fusion weighs the two (one
full-text column per table, fusion does the weighting):

- ``meta``: its tag names and its entities' names;
- ``links``: the titles of the memories its head links to (authored edges, targets indexed);
- ``prev``: for an ``episodic`` memory with a session id, the full text of the episodic
  memory just before it in that session (by event time, else creation time, then path),
  among memories with the same archived flag.

It changes what the ``context`` arm matches, never what a hit displays (snippets come from the
chunks). The SQLite index stores it (``adapters/sqlite/context_sql.py``, pinned to this twin by
the contract suite); the in-memory backend computes it here.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from itertools import pairwise
from typing import Final

import attrs

CONTEXT_PARTS: Final[tuple[str, ...]] = ("meta", "links", "prev")
"""Every part the context document can hold, in the order they follow the own text."""

DEFAULT_CONTEXT_PARTS: Final[frozenset[str]] = frozenset(CONTEXT_PARTS)
"""The parts an index builds with (see docs/ranking.md for the measurements)."""

PART_SEPARATOR: Final = "\n"
"""Between the own text and each part, and between link titles: never fuses two words."""

WORD_SEPARATOR: Final = " "
"""Between tag names and between entity names."""

NEIGHBOUR_TYPE: Final = "episodic"
"""Only episodic memories have session neighbours: the order of events is what they record."""


@attrs.frozen(kw_only=True)
class ContextFacts:
    """What one indexed memory contributes to its own and its neighbours' context documents.

    Attributes:
        path: The memory's path.
        memory_type: Its type; only ``episodic`` memories take part in ``prev``.
        session_id: Its session id (``memhtml-session``), or ``None``.
        archived: Whether it lives under ``archive/`` (neighbours share the flag).
        order_at: Its event time, else its creation time: the order inside a session.
        title: Its title, quoted by memories linking to it.
        fts_text: Its own full-text document.
        tags: Its tag names.
        entity_names: Its entities' names (the part after ``type:``).
        link_targets: The paths its authored edges point to (indexed or not).
    """

    path: str
    memory_type: str
    session_id: str | None
    archived: bool
    order_at: str
    title: str
    fts_text: str
    tags: tuple[str, ...] = ()
    entity_names: tuple[str, ...] = ()
    link_targets: tuple[str, ...] = ()


def context_documents(
    facts: Iterable[ContextFacts], parts: Collection[str] = DEFAULT_CONTEXT_PARTS
) -> dict[str, str]:
    """The context document of every memory that has some context, by path.

    A memory whose parts are all empty has no document: its own text alone would repeat the
    ``fts`` arm's evidence and double the weight of words against meaning for exactly the
    memories the arm has nothing to add to.

    The result does not depend on the order of ``facts``: tags, entity names and link titles
    are sorted (tags by name, entities by name, links by target path), duplicates kept out.

    Raises:
        ValueError: ``parts`` names a part that does not exist (a caller bug).
    """
    unknown = set(parts) - set(CONTEXT_PARTS)
    if unknown:
        raise ValueError(f"unknown context parts: {sorted(unknown)}")
    by_path = {fact.path: fact for fact in facts}
    previous = previous_in_session(by_path.values()) if "prev" in parts else {}
    documents: dict[str, str] = {}
    for path, fact in by_path.items():
        pieces = [fact.fts_text]
        if "meta" in parts:
            pieces.append(WORD_SEPARATOR.join(sorted(set(fact.tags))))
            pieces.append(WORD_SEPARATOR.join(sorted(set(fact.entity_names))))
        if "links" in parts:
            pieces.append(_link_titles(fact, by_path))
        if "prev" in parts:
            before = previous.get(path)
            pieces.append("" if before is None else by_path[before].fts_text)
        if any(pieces[1:]):
            documents[path] = PART_SEPARATOR.join(piece for piece in pieces if piece)
    return documents


def _link_titles(fact: ContextFacts, by_path: Mapping[str, ContextFacts]) -> str:
    targets = sorted({target for target in fact.link_targets if target in by_path})
    titles = (by_path[target].title for target in targets if target != fact.path)
    return PART_SEPARATOR.join(title for title in titles if title)


def previous_in_session(facts: Iterable[ContextFacts]) -> dict[str, str]:
    """Per episodic memory with a session, the path of the one just before it (the ``prev``
    part's neighbour, and the graph arm's implicit ``precedes`` edge)."""
    sessions: dict[tuple[bool, str], list[ContextFacts]] = {}
    for fact in facts:
        if fact.memory_type == NEIGHBOUR_TYPE and fact.session_id is not None:
            sessions.setdefault((fact.archived, fact.session_id), []).append(fact)
    previous: dict[str, str] = {}
    for members in sessions.values():
        ordered = sorted(members, key=lambda fact: (fact.order_at, fact.path))
        for before, after in pairwise(ordered):
            previous[after.path] = before.path
    return previous
