"""What the write-path use cases are handed: the ports, the clock and the file-format functions.

The composition root builds one ``WriteDeps``; tests build one over fakes. Nothing here opens a
file or a database by itself.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from typing import Final

import attrs

from memhtml.ports.assist_lookup import AssistLookup
from memhtml.ports.clock import Clock
from memhtml.ports.embedder import Embedder
from memhtml.ports.git import GitPort
from memhtml.ports.git_writer import GitWriter
from memhtml.ports.indexer import Indexer
from memhtml.ports.memory_codec import MemoryCodec
from memhtml.ports.recorder import Recorder

COMMIT_ATTEMPTS: Final = 8
"""Tries per mutation when another writer moves HEAD first (``HeadMoved``).

Each retry re-reads HEAD and re-plans the whole command, so two writers racing on one store
both land. Bounded, because a lock left by a crashed process also reads as ``HeadMoved``.
"""


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
        assists: The write-time assists' lookups (frame claims, near vectors), asked once per
            batch.
        embed: Whether index updates embed new chunks (``MEMHTML_EMBED`` not ``off``).
        embedder: The document embedder the near-duplicate assist embeds written first chunks
            with (the indexer's own); ``None`` in a lexical-only store.
        commit_attempts: Tries when HEAD moves under the command.
        pause: Sleeps between tries (seconds); tests pass a recorder of pauses.
        write_lock: Held from the pre-write index update to the commit, so writers in other
            processes queue instead of re-planning after every ``HeadMoved``; a no-op by
            default (single-process tests), the repository's lock in production.
        request_id: Names this command invocation in its commit's ``Memhtml-Request`` trailer,
            so the same command run again finds what it already did (``landed_request.py``);
            ``None``: no trailer.
    """

    git: GitPort
    writer: GitWriter
    recorder: Recorder
    indexer: Indexer
    clock: Clock
    codec: MemoryCodec
    assists: AssistLookup
    embed: bool = True
    embedder: Embedder | None = None
    commit_attempts: int = COMMIT_ATTEMPTS
    pause: Callable[[float], None] = time.sleep
    write_lock: Callable[[], AbstractContextManager[None]] = nullcontext
    request_id: str | None = None
