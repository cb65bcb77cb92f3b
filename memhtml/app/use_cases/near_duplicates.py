"""The near-duplicate assist: which live memories a written memory nearly repeats.

A memory that restates one already in the store ("The export job starts at 03:30 UTC" beside
"Every night the export starts at 03:30 UTC") is reported when it is written, so the store
does not fill with rewordings. Near means the first chunks' vectors are at or above a cosine
floor (docs/cli-contract.md §3.8); the similarity travels with each match, because the floor is
the caller's policy. Arcs are never matches (a synthesis is no duplicate of its members); a
memory the batch itself archived or moved (the target of ``correct``) no longer counts; memories
written in the same batch are not compared with each other.

Cost, per batch: one embedder call for the written first chunks (the vectors then go to the
index update, which stores them instead of embedding them again) and one ``AssistLookup``
question, which reads the live vectors once for every query.

When it runs: a written memory's vector needs the model. Where the command embeds anyway (the
Python API and the MCP server, by default) the assist always runs. The command line writes
without loading the model (issue 18), so there ``report`` does not check and says so in the
note; ``skip`` and ``fail`` need the answer before committing, so they load the model. A store
with no embedder (``MEMHTML_EMBED=off``) never checks and never fails for it: the note says why.
"""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping, Sequence
from typing import Final

import attrs

from memhtml.app.errors import NearDuplicateFound
from memhtml.app.staged_tree import StagedTree
from memhtml.app.use_cases.collaborators import WriteDeps
from memhtml.app.use_cases.pending_vectors import settle_pending
from memhtml.domain.chunking import chunk_text
from memhtml.domain.errors import InvalidInput
from memhtml.domain.model import MemoryDoc
from memhtml.domain.near_duplicates import DEFAULT_NEAR_FLOOR, DEFAULT_NEAR_LIMIT, ranked_near
from memhtml.domain.vectors import pack_f32
from memhtml.domain.vocabulary import ARC_TYPE
from memhtml.ports.assist_lookup import AssistLookup, NearQuery
from memhtml.ports.embedder import Embedder
from memhtml.ports.errors import ModelUnavailable
from memhtml.ports.indexer import Indexer

ON_NEAR_REPORT: Final = "report"
"""List near-duplicates beside the result; write anyway (the default)."""
ON_NEAR_SKIP: Final = "skip"
"""Do not write a memory that has a near-duplicate; the result names them."""
ON_NEAR_FAIL: Final = "fail"
"""Refuse a write that has a near-duplicate (``ERR_NEAR_DUPLICATE``)."""
ON_NEAR_DUPLICATE_MODES: Final = (ON_NEAR_REPORT, ON_NEAR_SKIP, ON_NEAR_FAIL)

NOTE_NO_EMBEDDER: Final = (
    "near-duplicates not checked: no embedder is configured (MEMHTML_EMBED=off)"
)
NOTE_LEXICAL_WRITE: Final = (
    "near-duplicates not checked: the command line writes without loading the model; "
    "--on-near-duplicate skip or fail checks before committing"
)


@attrs.frozen(kw_only=True)
class NearPolicy:
    """What the caller wants done about near-duplicates.

    Attributes:
        mode: ``report``, ``skip`` or ``fail``.
        floor: The cosine similarity at or above which a live memory is near (−1 to 1).
        limit: Near-duplicates listed per written memory, most similar first (≥ 1).
    """

    mode: str = ON_NEAR_REPORT
    floor: float = DEFAULT_NEAR_FLOOR
    limit: int = DEFAULT_NEAR_LIMIT


def checked_near_policy(policy: NearPolicy) -> NearPolicy:
    """``policy`` when its mode, floor and limit are usable.

    Raises:
        InvalidInput: An unknown mode, a floor outside −1…1, or a limit under 1.
    """
    if policy.mode not in ON_NEAR_DUPLICATE_MODES:
        raise InvalidInput(
            f"on-near-duplicate must be one of {', '.join(ON_NEAR_DUPLICATE_MODES)}, "
            f"not {policy.mode!r}"
        )
    if not -1.0 <= policy.floor <= 1.0:
        raise InvalidInput(f"near-duplicate floor must be between -1 and 1, not {policy.floor}")
    if policy.limit < 1:
        raise InvalidInput(f"near-duplicate limit must be at least 1, not {policy.limit}")
    return policy


@attrs.frozen(kw_only=True)
class NearDuplicate:
    """A live memory whose first chunk is near the written memory's."""

    path: str
    gist: str
    similarity: float


@attrs.frozen(kw_only=True)
class WrittenText:
    """A memory a batch writes, as the assist sees it.

    Attributes:
        path: Where it is staged.
        chunk_id, text: Its first chunk (``None`` and empty for a memory without body text,
            which is never checked).
    """

    path: str
    chunk_id: str | None
    text: str


def written_text(path: str, doc: MemoryDoc) -> WrittenText:
    """The written memory at ``path`` with the first chunk the index will give it."""
    chunks = chunk_text(doc.content_hash, doc.body_text)
    if not chunks:
        return WrittenText(path=path, chunk_id=None, text="")
    return WrittenText(path=path, chunk_id=chunks[0].chunk_id, text=chunks[0].text)


@attrs.frozen(kw_only=True)
class NearCheck:
    """The assist's answer for a batch.

    Attributes:
        found: For each written memory, in order, its near-duplicates.
        note: Why the batch was not checked, or which memories could not be compared;
            ``None`` when every written memory was compared with every live one.
        vectors: The written first chunks' vectors by chunk id, for the index update.
    """

    found: tuple[tuple[NearDuplicate, ...], ...]
    note: str | None = None
    vectors: Mapping[str, bytes] = attrs.field(factory=dict)


@attrs.frozen(kw_only=True)
class NearPorts:
    """What the assist asks: the model, the live vectors, and the index for pending ones.

    Attributes:
        embedder: The document embedder; ``None`` in a lexical-only store.
        lookup: The live memories near a batch of vectors.
        indexer: Embeds pending chunks of live memories first, as a search does.
        embeds: Whether the command embeds anyway (the model is loaded or will be).
    """

    embedder: Embedder | None
    lookup: AssistLookup
    indexer: Indexer
    embeds: bool


def near_ports(deps: WriteDeps) -> NearPorts:
    """The assist's ports out of the write path's."""
    return NearPorts(
        embedder=deps.embedder, lookup=deps.assists, indexer=deps.indexer, embeds=deps.embed
    )


def near_duplicates_for(
    ports: NearPorts,
    tree: StagedTree,
    written: Sequence[WrittenText],
    policy: NearPolicy,
    *,
    cache: MutableMapping[str, bytes] | None = None,
) -> NearCheck:
    """For each written memory, in order, the live memories it nearly repeats.

    ``cache`` (chunk id → vector) keeps vectors across calls for one command, so a batch
    staged twice embeds once.

    Raises:
        StorageFailure: The index cannot be read.
    """
    nothing = tuple(() for _ in written)
    if not written:
        return NearCheck(found=())
    embedder = ports.embedder
    if embedder is None:
        return NearCheck(found=nothing, note=NOTE_NO_EMBEDDER)
    if not ports.embeds and policy.mode == ON_NEAR_REPORT:
        return NearCheck(found=nothing, note=NOTE_LEXICAL_WRITE)
    known = cache if cache is not None else {}
    try:
        _embed_missing(embedder, written, known)
    except ModelUnavailable as stopped:
        return NearCheck(found=nothing, note=f"near-duplicates not checked: {stopped.reason}")
    pending = settle_pending(ports.indexer, embed=True)
    vectors = {w.chunk_id: known[w.chunk_id] for w in written if w.chunk_id is not None}
    asked = [w for w in written if w.chunk_id is not None]
    changes = tree.change_set()
    gone = {move.source for move in changes.moves} | set(changes.deletes)
    answers = ports.lookup.active_nearest_for(
        [NearQuery(vector=vectors[w.chunk_id or ""], own_path=w.path) for w in asked],
        model=embedder.watermark,
        floor=policy.floor,
        limit=policy.limit + len(gone),
        exclude_types=(ARC_TYPE,),
    )
    by_path: dict[str, tuple[NearDuplicate, ...]] = {}
    for w, matches in zip(asked, answers, strict=True):
        near = [NearDuplicate(path=m.path, gist=m.gist, similarity=m.similarity) for m in matches]
        left = {n.path for n in near if not tree.exists(n.path)}
        by_path[w.path] = ranked_near(
            near, floor=policy.floor, limit=policy.limit, excluded=left | {w.path}
        )
    note = None
    if pending:
        note = (
            f"{pending:,} chunks of the store have no vector yet; their memories were not "
            "compared (memhtml index embed fills them)"
        )
    found = tuple(by_path.get(w.path, ()) for w in written)
    return NearCheck(found=found, note=note, vectors=vectors)


def _embed_missing(
    embedder: Embedder, written: Sequence[WrittenText], known: MutableMapping[str, bytes]
) -> None:
    """Embed, in one call, the written first chunks ``known`` does not hold yet.

    Raises:
        ModelUnavailable: The model failed or answered with unusable vectors.
    """
    todo = {w.chunk_id: w.text for w in written if w.chunk_id is not None}
    todo = {c: t for c, t in todo.items() if c not in known}
    if not todo:
        return
    answered = embedder.embed(list(todo.values()))
    if len(answered) != len(todo):
        raise ModelUnavailable(f"returned {len(answered)} vectors for {len(todo)} texts")
    for chunk_id, vector in zip(todo, answered, strict=True):
        try:
            blob = pack_f32(vector) if len(vector) == embedder.dim else None
        except ValueError:
            blob = None
        if blob is None:
            raise ModelUnavailable(f"returned a vector that is not {embedder.dim} float32 values")
        known[chunk_id] = blob


def refuse_near_duplicates(path: str, near: Sequence[NearDuplicate]) -> NearDuplicateFound:
    """The refusal ``fail`` raises for the memory that would be at ``path``."""
    return NearDuplicateFound(path, tuple(n.path for n in near))
