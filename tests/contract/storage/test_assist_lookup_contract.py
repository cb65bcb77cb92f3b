"""The assist lookup port (frame claims, first-chunk vectors, near neighbours) and the index
store's re-keying: the same assertions over every backend, through the ports only."""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memhtml.domain.frame_key import frame_key
from memhtml.domain.vectors import pack_f32
from memhtml.ports.assist_lookup import FrameMatch, NearMatch, NearQuery
from memhtml.ports.health import ContradictionLink, FrameClaim
from memhtml.ports.storage import Storage
from memhtml.ports.vector_store import StoredVector
from tests.contract.storage.harness import BACKENDS, DIM, MODEL, NOW, Memory, open_backend, write

OTHER_MODEL = "other-space@16"
FIFTY = "The checkout pool holds 50 connections per pod."
EIGHTY = "The checkout pool holds 80 connections per pod."
KEY = "the checkout pool holds {number} connections per pod"


@pytest.fixture(params=BACKENDS)
def storage(request: pytest.FixtureRequest) -> Iterator[Storage]:
    """One empty store per backend."""
    with open_backend(request.param) as opened:
        yield opened


def direction(*components: float) -> bytes:
    """A stored vector pointing along the given leading components."""
    return pack_f32([*components, *([0.0] * (DIM - len(components)))])


def store(
    storage: Storage, memories: Sequence[tuple[Memory, bytes | None]], model: str = MODEL
) -> None:
    """Project the memories and give each its first chunk's vector (``None``: none)."""
    projections = write(storage, [memory for memory, _ in memories])
    vectors = [
        StoredVector(chunk_id=projection.chunks[0].chunk_id, blob=blob)
        for projection, (_, blob) in zip(projections, memories, strict=True)
        if blob is not None
    ]
    if vectors:
        storage.vectors.put_vectors(vectors, model=model, dim=DIM, created_at=NOW)


def test_frame_claims_are_the_live_non_task_rows_on_each_key(storage: Storage) -> None:
    """Archived rows and tasks never hold a key; a key nobody holds is absent."""
    write(
        storage,
        [
            Memory(path="resources/pool/b.html", claim=EIGHTY),
            Memory(path="resources/pool/a.html", claim=FIFTY),
            Memory(
                path="archive/2026/resources/pool/c.html",
                claim="The checkout pool holds 20 connections per pod.",
            ),
            Memory(
                path="projects/ws/tasks/d.html",
                claim="The checkout pool holds 90 connections per pod.",
                memory_type="task",
            ),
            Memory(path="areas/inbox/e.html", claim="The export starts at 03:30 UTC."),
        ],
    )
    found = storage.assists.active_frames_for(
        [KEY, "the export starts at {time} utc", "nobody {number}"]
    )
    assert {
        KEY: (
            FrameMatch(path="resources/pool/a.html", gist=FIFTY),
            FrameMatch(path="resources/pool/b.html", gist=EIGHTY),
        ),
        "the export starts at {time} utc": (
            FrameMatch(path="areas/inbox/e.html", gist="The export starts at 03:30 UTC."),
        ),
    } == dict(found)


def test_no_keys_find_nothing(storage: Storage) -> None:
    """An empty question has an empty answer."""
    write(storage, [Memory(path="areas/inbox/a.html", claim=FIFTY)])
    assert {} == dict(storage.assists.active_frames_for([]))


def test_a_fresh_index_has_no_frame_rule_and_rekeying_records_one(storage: Storage) -> None:
    """Keys are set for the listed rows only, unknown paths are ignored, the rule is recorded."""
    write(
        storage,
        [
            Memory(path="areas/inbox/a.html", claim=FIFTY),
            Memory(path="areas/inbox/b.html", claim=EIGHTY),
        ],
    )
    before = (storage.index.frame_key_rule(), storage.index.frame_sources())
    storage.index.rekey_frames(
        "test-rule", {"areas/inbox/a.html": "k {number}", "areas/inbox/nowhere.html": "x {number}"}
    )
    assert (
        "",
        (("areas/inbox/a.html", FIFTY), ("areas/inbox/b.html", EIGHTY)),
    ) == before
    assert (
        "test-rule",
        {"k {number}": (FrameMatch(path="areas/inbox/a.html", gist=FIFTY),)},
        {KEY: (FrameMatch(path="areas/inbox/b.html", gist=EIGHTY),)},
    ) == (
        storage.index.frame_key_rule(),
        dict(storage.assists.active_frames_for(["k {number}", "x {number}"])),
        dict(storage.assists.active_frames_for([KEY])),
    )


def test_projection_keys_rows_by_their_gist(storage: Storage) -> None:
    """A projected row carries ``frame_key(gist)``; a gist without values carries none."""
    write(
        storage,
        [
            Memory(path="areas/inbox/a.html", claim=FIFTY),
            Memory(path="areas/inbox/b.html", claim="The checkout pool is bounded."),
        ],
    )
    assert {KEY: (FrameMatch(path="areas/inbox/a.html", gist=FIFTY),)} == dict(
        storage.assists.active_frames_for([KEY, frame_key("The checkout pool is bounded.") or ""])
    )


def test_first_chunk_vectors_come_from_the_content_in_the_asked_space(storage: Storage) -> None:
    """A memory sharing its content with an archived copy still finds the shared chunk's
    vector; a vector in another space or none at all is absent."""
    shared = Memory(path="resources/pool/live.html", claim=FIFTY)
    store(
        storage,
        [
            (Memory(path="archive/2026/resources/pool/live.html", claim=FIFTY), direction(1.0)),
            (shared, None),
            (Memory(path="areas/inbox/none.html", claim=EIGHTY), None),
        ],
    )
    store(
        storage,
        [(Memory(path="areas/inbox/other.html", claim="Other 5."), direction(0.0, 1.0))],
        OTHER_MODEL,
    )
    found = storage.assists.first_chunk_vectors(
        [shared.path, "areas/inbox/none.html", "areas/inbox/other.html", "areas/inbox/gone.html"],
        model=MODEL,
    )
    assert {shared.path: direction(1.0)} == dict(found)


def test_nearest_are_live_above_the_floor_best_first_and_capped(storage: Storage) -> None:
    """Archived rows, excluded types, the query's own path and other spaces never come back;
    ties break by path; at most ``limit`` per query; answers are positional."""
    store(
        storage,
        [
            (Memory(path="areas/inbox/same-b.html", claim="b"), direction(1.0)),
            (Memory(path="areas/inbox/same-a.html", claim="a"), direction(2.0)),
            (Memory(path="areas/inbox/close.html", claim="c"), direction(1.0, 0.3)),
            (Memory(path="areas/inbox/far.html", claim="d"), direction(0.0, 1.0)),
            (Memory(path="areas/inbox/zero.html", claim="z"), direction(0.0)),
            (Memory(path="areas/arcs/arc.html", claim="e", memory_type="arc"), direction(1.0)),
            (
                Memory(path="projects/ws/tasks/t.html", claim="t", memory_type="task"),
                direction(1.0),
            ),
            (Memory(path="archive/2026/areas/inbox/old.html", claim="o"), direction(1.0)),
        ],
    )
    store(
        storage, [(Memory(path="areas/inbox/other.html", claim="x"), direction(1.0))], OTHER_MODEL
    )
    answers = storage.assists.active_nearest_for(
        [
            NearQuery(vector=direction(3.0), own_path="areas/inbox/same-b.html"),
            NearQuery(vector=direction(0.0, 2.0)),
            NearQuery(vector=direction(-1.0)),
        ],
        model=MODEL,
        floor=0.9,
        limit=3,
        exclude_types=("arc",),
    )
    close = 1.0 / math.sqrt(1.09)
    paths = tuple(tuple((m.path, round(m.similarity, 6)) for m in answer) for answer in answers)
    assert (
        (
            ("areas/inbox/same-a.html", 1.0),
            ("projects/ws/tasks/t.html", 1.0),
            ("areas/inbox/close.html", round(close, 6)),
        ),
        (("areas/inbox/far.html", 1.0),),
        (),
    ) == paths
    assert "c" == answers[0][2].gist


def test_no_queries_or_no_room_find_nothing(storage: Storage) -> None:
    """An empty batch asks nothing; a limit of 0 keeps nothing."""
    store(storage, [(Memory(path="areas/inbox/a.html", claim="a"), direction(1.0))])
    ask = storage.assists.active_nearest_for
    assert ((), ((),)) == (
        ask([], model=MODEL, floor=0.0, limit=3),
        ask([NearQuery(vector=direction(1.0))], model=MODEL, floor=0.0, limit=0),
    )


components = st.lists(st.sampled_from([0.0, 1.0, -1.0, 0.5, 2.0, 0.25]), min_size=DIM, max_size=DIM)


@settings(max_examples=25, deadline=None)
@given(
    corpus=st.lists(components, min_size=1, max_size=6),
    probes=st.lists(components, min_size=1, max_size=3),
    floor=st.sampled_from([-1.0, 0.0, 0.5, 0.9]),
    limit=st.integers(1, 4),
)
def test_both_backends_report_the_same_neighbours_to_the_bit(
    corpus: list[list[float]], probes: list[list[float]], floor: float, limit: int
) -> None:
    """Same paths, same order, same similarity values: the twin is sqlite-vec's loop."""
    answers: list[tuple[tuple[NearMatch, ...], ...]] = []
    for backend in BACKENDS:
        with open_backend(backend) as opened:
            store(
                opened,
                [
                    (
                        Memory(path=f"areas/inbox/m{i}.html", claim=f"Memory {chr(97 + i)}."),
                        pack_f32(v),
                    )
                    for i, v in enumerate(corpus)
                ],
            )
            answers.append(
                opened.assists.active_nearest_for(
                    [NearQuery(vector=pack_f32(p), own_path="areas/inbox/m0.html") for p in probes],
                    model=MODEL,
                    floor=floor,
                    limit=limit,
                )
            )
    assert answers[0] == answers[1]


def test_doctor_sees_live_claims_sharing_a_key(storage: Storage) -> None:
    """Every live non-task claim on a key some other one holds, by key then path; a key held
    once, an archived claim and a task are not shared claims."""
    write(
        storage,
        [
            Memory(path="resources/pool/b.html", claim=EIGHTY),
            Memory(path="resources/pool/a.html", claim=FIFTY),
            Memory(path="resources/pool/c.html", claim=FIFTY.replace("pool", "queue")),
            Memory(path="archive/2026/resources/pool/old.html", claim=FIFTY.replace("50", "9")),
            Memory(
                path="projects/ws/tasks/t.html", claim=EIGHTY.replace("80", "7"), memory_type="task"
            ),
            Memory(path="areas/inbox/q.html", claim="The checkout queue is bounded."),
        ],
    )
    assert (
        FrameClaim(frame_key=KEY, path="resources/pool/a.html", gist=FIFTY),
        FrameClaim(frame_key=KEY, path="resources/pool/b.html", gist=EIGHTY),
    ) == storage.health.shared_frames()


def test_doctor_sees_contradictions_between_active_memories_only(storage: Storage) -> None:
    """A ``contradicts`` edge counts while both ends are active memories; one to an archived or
    missing memory, and any other relation, does not."""
    write(
        storage,
        [
            Memory(path="areas/inbox/b.html", claim="B holds."),
            Memory(
                path="areas/inbox/a.html",
                claim="A holds.",
                links=(
                    ("contradicts", "areas/inbox/b.html"),
                    ("contradicts", "archive/2026/areas/inbox/old.html"),
                    ("contradicts", "areas/inbox/gone.html"),
                    ("supports", "areas/inbox/c.html"),
                ),
            ),
            Memory(
                path="areas/inbox/c.html",
                claim="C holds.",
                links=(("contradicts", "areas/inbox/b.html"),),
            ),
            Memory(
                path="archive/2026/areas/inbox/old.html",
                claim="Old.",
                links=(("contradicts", "areas/inbox/b.html"),),
            ),
        ],
    )
    assert (
        ContradictionLink(
            src_path="areas/inbox/a.html",
            src_gist="A holds.",
            dst_path="areas/inbox/b.html",
            dst_gist="B holds.",
        ),
        ContradictionLink(
            src_path="areas/inbox/c.html",
            src_gist="C holds.",
            dst_path="areas/inbox/b.html",
            dst_gist="B holds.",
        ),
    ) == storage.health.active_contradictions()
