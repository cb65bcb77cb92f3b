"""What the write-path use cases are handed: the ports, the clock and the file-format functions.

The composition root builds one ``WriteDeps``; tests build one over fakes. Nothing here opens a
file or a database by itself.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Final

import attrs

from memhtml.domain.model import MemoryDoc, RenderInputs
from memhtml.ports.clock import Clock
from memhtml.ports.git import GitPort
from memhtml.ports.git_writer import GitWriter
from memhtml.ports.indexer import Indexer
from memhtml.ports.recorder import Recorder

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
        parse: File bytes to ``MemoryDoc``; raises ``InvalidMemory``.
        set_meta: ``(html, name, value)`` to the html with one scalar meta set.
        add_link: ``(html, rel, target)`` to the html with the link (unchanged if present).
        mark_archived: ``(html, at)`` to the html stamped archived at ``at``.
    """

    render: Callable[[RenderInputs], str]
    parse: Callable[[bytes], MemoryDoc]
    set_meta: Callable[[str, str, str], str]
    add_link: Callable[[str, str, str], str]
    mark_archived: Callable[[str, str], str]


def html_codec() -> MemoryCodec:
    """The codec over the html5lib adapter, imported here so a read-only caller never loads it."""
    from memhtml.adapters.html import add_link, mark_archived, parse_memory, render_memory, set_meta

    return MemoryCodec(
        render=render_memory,
        parse=parse_memory,
        set_meta=set_meta,
        add_link=add_link,
        mark_archived=mark_archived,
    )


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
