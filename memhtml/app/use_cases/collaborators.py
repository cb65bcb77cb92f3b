"""What the write-path use cases are handed: the ports, the clock and the file-format functions.

The composition root builds one ``WriteDeps``; tests build one over fakes. Nothing here opens a
file or a database by itself.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager, nullcontext
from typing import TYPE_CHECKING, Final

import attrs

from memhtml.domain.model import MemoryDoc, RenderInputs
from memhtml.ports.clock import Clock
from memhtml.ports.git import GitPort
from memhtml.ports.git_writer import GitWriter
from memhtml.ports.indexer import Indexer
from memhtml.ports.memory_parser import MemoryParser
from memhtml.ports.recorder import Recorder

if TYPE_CHECKING:
    from memhtml.adapters.html.renderer import RenderedMemory

COMMIT_ATTEMPTS: Final = 8
"""Tries per mutation when another writer moves HEAD first (``HeadMoved``).

Each retry re-reads HEAD and re-plans the whole command, so two writers racing on one store
both land. Bounded, because a lock left by a crashed process also reads as ``HeadMoved``.
"""


@attrs.frozen(kw_only=True)
class MemoryCodec:
    """The memory-file functions the write path needs (``memhtml.adapters.html`` in production).

    Attributes:
        render: ``RenderInputs`` to canonical file text; raises ``InvalidMemory``/``InvalidInput``.
        render_parsed: ``render`` plus the ``MemoryDoc`` a reader parses from the text, from the
            renderer's one validating parse.
        parse: File bytes to ``MemoryDoc``; raises ``InvalidMemory``.
        set_meta: ``(html, name, value)`` to the html with one scalar meta set.
        add_link: ``(html, rel, target)`` to the html with the link (unchanged if present).
        mark_archived: ``(html, at)`` to the html stamped archived at ``at``.
    """

    render: Callable[[RenderInputs], str]
    render_parsed: Callable[[RenderInputs], RenderedMemory]
    parse: Callable[[bytes], MemoryDoc]
    set_meta: Callable[[str, str, str], str]
    add_link: Callable[[str, str, str], str]
    mark_archived: Callable[[str, str], str]


def html_codec() -> MemoryCodec:
    """The codec over the html5lib adapter, imported here so a read-only caller never loads it."""
    from memhtml.adapters.html import add_link, mark_archived, parse_memory, render_memory, set_meta
    from memhtml.adapters.html.renderer import render_parsed

    return MemoryCodec(
        render=render_memory,
        render_parsed=render_parsed,
        parse=parse_memory,
        set_meta=set_meta,
        add_link=add_link,
        mark_archived=mark_archived,
    )


class ParseCache:
    """The indexer's parser, answering from the documents a commit's writer already parsed.

    Rendering a memory parses it once (to validate it and compute its hash); the index update
    right after the commit used to parse the same bytes again, and a 500-op batch spent a
    second or more there. The write path hands its documents over (``remember``) just before
    that update and drops them after (``forget``). Keyed by the file's exact bytes, so an
    answer is the parse of those bytes or nothing: a stale or foreign entry can only miss.

    Pickles as the wrapped parser alone, so a rebuild's process pool still receives a
    module-level function and the workers carry no documents.
    """

    def __init__(self, parser: MemoryParser) -> None:
        """Wrap ``parser``, which parses whatever was not handed over."""
        self._parser = parser
        self._docs: dict[bytes, MemoryDoc] = {}

    def __call__(self, data: bytes) -> MemoryDoc:
        """The remembered document for ``data``, else a fresh parse (see ``MemoryParser``)."""
        doc = self._docs.get(data)
        return doc if doc is not None else self._parser(data)

    def recall(self, data: bytes) -> MemoryDoc | None:
        """The remembered document for exactly these bytes, or ``None``."""
        return self._docs.get(data)

    def remember(self, docs: Mapping[bytes, MemoryDoc]) -> None:
        """Keep each file's document until ``forget``."""
        self._docs.update(docs)

    def forget(self) -> None:
        """Drop every remembered document."""
        self._docs.clear()

    def __reduce__(self) -> tuple[Callable[[MemoryParser], MemoryParser], tuple[MemoryParser]]:
        return _unwrapped, (self._parser,)


def _unwrapped(parser: MemoryParser) -> MemoryParser:
    """What a ``ParseCache`` unpickles as: its parser, without the documents."""
    return parser


@attrs.frozen(kw_only=True)
class WriteDeps:
    """The collaborators of every mutating use case.

    Attributes:
        git: Reads HEAD, trees, blobs and the working tree's status.
        writer: Lands one change set as one commit.
        recorder: The dedup lookup and session links.
        indexer: Refreshed before planning (its refusals are the preflight) and after the
            commit.
        clock: Every stamp the command writes.
        codec: Render, parse and head edits.
        embed: Whether index updates embed new chunks (``MEMHTML_EMBED`` not ``off``).
        commit_attempts: Tries when HEAD moves under the command.
        pause: Sleeps between tries (seconds); tests pass a recorder of pauses.
        parsed: The indexer's parse cache, when it has one: a commit's rendered documents are
            handed to it for the index update that follows, instead of being parsed again.
        write_lock: Held from the pre-write index update to the commit, so writers in other
            processes queue instead of re-planning after every ``HeadMoved``; a no-op by
            default (single-process tests), the repository's lock in production.
    """

    git: GitPort
    writer: GitWriter
    recorder: Recorder
    indexer: Indexer
    clock: Clock
    codec: MemoryCodec
    embed: bool = True
    commit_attempts: int = COMMIT_ATTEMPTS
    pause: Callable[[float], None] = time.sleep
    parsed: ParseCache | None = None
    write_lock: Callable[[], AbstractContextManager[None]] = nullcontext
