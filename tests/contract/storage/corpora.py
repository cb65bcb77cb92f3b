"""Generated stores for the cross-backend suites: small vocabularies so queries match often,
ties are common, and every arm has something to rank."""

from __future__ import annotations

from collections.abc import Sequence

import attrs
from hypothesis import strategies as st

from memhtml.adapters.hashing.embedder import HashingEmbedder
from memhtml.domain.vectors import pack_f32
from memhtml.ports.storage import Storage
from memhtml.ports.vector_store import StoredVector
from tests.contract.storage.harness import DIM, NOW, Memory, write

EMBEDDER = HashingEmbedder(DIM)
WORDS = (
    "invoice", "export", "ledger", "pool", "cache", "runs", "nightly", "retry", "merge", "not",
    "tokens", "sasha", "checkout", "queue", "drain", "the", "is", "api", "ops",
)  # fmt: skip
FOLDERS = ("areas/inbox", "projects/alpha", "resources/billing", "archive/2026/areas/inbox")
RELS = ("supports", "supersedes", "fixes", "caused_by", "contradicts")
TYPES = ("semantic", "procedural", "episodic", "error_pattern", "task")
STAMPS = (
    "2026-08-01T00:00:00Z",
    "2026-08-15T12:00:00Z",
    "2026-09-01T00:00:00Z",
    "2026-09-10T08:30:00Z",
)

sentences = st.lists(st.sampled_from(WORDS), min_size=1, max_size=7).map(
    lambda words: " ".join(words).capitalize() + "."
)


@st.composite
def memories(draw: st.DrawFn) -> tuple[Memory, ...]:
    """Up to 9 memories with distinct paths and distinct active contents, linked among
    themselves (and once in a while to a path no memory holds)."""
    count = draw(st.integers(1, 9))
    folders = [draw(st.sampled_from(FOLDERS)) for _ in range(count)]
    paths = [f"{folder}/m{i}.html" for i, folder in enumerate(folders)]
    targets = [*paths, "areas/inbox/gone.html"]
    found: list[Memory] = []
    claims: set[str] = set()
    for i, path in enumerate(paths):
        claim = draw(sentences)
        memory_type = draw(st.sampled_from(TYPES))
        if claim in claims:
            claim = f"{claim[:-1]} {i}."
        claims.add(claim)
        found.append(
            Memory(
                path=path,
                claim=claim,
                title=draw(sentences)[:-1],
                memory_type=memory_type,
                body=tuple(draw(st.lists(sentences, max_size=2))),
                tags=tuple(draw(st.lists(st.sampled_from(("ops", "billing")), max_size=2))),
                entities=tuple(
                    draw(st.lists(st.sampled_from(("person:sasha", "service:api")), max_size=2))
                ),
                aliases=tuple(
                    draw(st.lists(st.sampled_from(("the ledger", "checkout queue")), max_size=1))
                ),
                links=tuple(
                    draw(
                        st.lists(
                            st.tuples(st.sampled_from(RELS), st.sampled_from(targets)),
                            max_size=3,
                            unique=True,
                        )
                    )
                ),
                updated_at=draw(st.sampled_from(STAMPS)),
                event_at=draw(st.one_of(st.none(), st.sampled_from(STAMPS))),
                session_id=draw(st.sampled_from((None, "chat-1", "chat-2"))),
            )
        )
    return tuple(found)


queries = st.lists(st.sampled_from(WORDS), min_size=1, max_size=3).map(" ".join)


@attrs.frozen(kw_only=True)
class Reinforcement:
    """A reinforce call to replay: which memory (by index), the signal, when."""

    index: int
    signal: str
    at: str


reinforcements = st.lists(
    st.builds(
        Reinforcement,
        index=st.integers(0, 8),
        signal=st.sampled_from(("neutral", "positive", "negative")),
        at=st.sampled_from(STAMPS),
    ),
    max_size=6,
)


def populate(
    storage: Storage, corpus: Sequence[Memory], replays: Sequence[Reinforcement] = ()
) -> None:
    """Write ``corpus``, embed every chunk with the hashing embedder, replay reinforcements."""
    from memhtml.domain.reinforce import Signal

    write(storage, corpus)
    pending = storage.vectors.pending_chunks(EMBEDDER.watermark)
    vectors = EMBEDDER.embed([chunk.text for chunk in pending])
    storage.vectors.put_vectors(
        [
            StoredVector(chunk_id=chunk.chunk_id, blob=pack_f32(vector))
            for chunk, vector in zip(pending, vectors, strict=True)
        ],
        model=EMBEDDER.watermark,
        dim=EMBEDDER.dim,
        created_at=NOW,
    )
    for replay in sorted(replays, key=lambda r: r.at):
        if replay.index < len(corpus):
            storage.access.reinforce([corpus[replay.index].path], Signal(replay.signal), replay.at)
