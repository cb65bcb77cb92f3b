"""Two files holding one content: an update keeps the smaller path, as a rebuild does, and reads
a skipped duplicate again exactly when the row holding its hash goes or changes."""

from __future__ import annotations

from memhtml.adapters.html import parse_memory
from memhtml.domain.model import MemoryDoc
from memhtml.ports.indexer import SKIP_DUPLICATE_CONTENT, SkippedFile
from tests.contract.test_indexer_rebuild import A, B, C, Store, memory_bytes, store
from tests.contract.test_indexer_update import seeded

__all__ = ["store"]  # the fixture, shared with the rebuild suite

SMALLER = "areas/inbox/0.html"  # sorts before A
LARGER = "resources/topic/d.html"  # sorts after A, B and C
ALPHA = memory_bytes("Alpha holds.", title="Alpha")


class CountingParser:
    """The real parser, remembering which documents it was asked to parse."""

    def __init__(self) -> None:
        self.parsed: list[bytes] = []

    def __call__(self, data: bytes) -> MemoryDoc:
        """Parse ``data`` and note it."""
        self.parsed.append(data)
        return parse_memory(data)


def skipped_as_duplicates(*paths: str) -> tuple[SkippedFile, ...]:
    """The report entries of files skipped for repeating another's content."""
    return tuple(SkippedFile(path=p, reasons=(SKIP_DUPLICATE_CONTENT,)) for p in paths)


def rebuilt_paths(store: Store) -> list[str]:
    """The paths a rebuild indexes now (the store is rebuilt in place)."""
    store.indexer().rebuild(embed=True)
    return store.paths()


def test_a_copy_at_a_smaller_path_takes_the_content_over(store: Store) -> None:
    """The stored holder with the larger path is displaced and reported as the duplicate."""
    seeded(store)
    store.commit({SMALLER: ALPHA})
    report = store.indexer().update(embed=False)
    updated = store.paths()
    assert (skipped_as_duplicates(A), [SMALLER, B, C]) == (report.skipped, updated)
    assert rebuilt_paths(store) == updated


def test_a_copy_at_a_larger_path_is_skipped(store: Store) -> None:
    """The stored holder keeps the content; the new copy is the duplicate."""
    seeded(store)
    store.commit({LARGER: ALPHA})
    report = store.indexer().update(embed=False)
    assert (skipped_as_duplicates(LARGER), [A, B, C]) == (report.skipped, store.paths())


def test_removing_the_holder_indexes_the_duplicate_a_rebuild_skipped(store: Store) -> None:
    """A rebuild remembers what it skipped; the update that deletes the holder reads it."""
    store.commit({A: ALPHA, LARGER: ALPHA, B: memory_bytes("Beta holds.")})
    store.indexer().rebuild(embed=False)
    store.commit(deletes=[A])
    store.indexer().update(embed=False)
    assert [B, LARGER] == store.paths()


def test_editing_the_holder_indexes_the_duplicate_an_update_skipped(store: Store) -> None:
    """The holder changing its content frees the hash for the file skipped beside it."""
    seeded(store)
    store.commit({LARGER: ALPHA})
    store.indexer().update(embed=False)
    store.commit({A: memory_bytes("Alpha moved on.", title="Alpha")})
    report = store.indexer().update(embed=False)
    assert ((), [A, B, C, LARGER]) == (report.skipped, store.paths())


def test_renaming_the_holder_past_its_duplicate_hands_the_content_over(store: Store) -> None:
    """A holder moved to a path after its duplicate's gives way, as a rebuild would decide."""
    seeded(store)
    store.commit({LARGER: ALPHA})
    store.indexer().update(embed=False)
    store.commit(moves=[(A, "resources/topic/e.html")])
    report = store.indexer().update(embed=False)
    updated = store.paths()
    assert (skipped_as_duplicates("resources/topic/e.html"), [B, C, LARGER]) == (
        report.skipped,
        updated,
    )
    assert rebuilt_paths(store) == updated


def test_a_displaced_holder_comes_back_when_the_copy_goes(store: Store) -> None:
    """The displaced row is remembered, so deleting the smaller copy brings it back."""
    seeded(store)
    store.commit({SMALLER: ALPHA})
    store.indexer().update(embed=False)
    store.commit(deletes=[SMALLER])
    store.indexer().update(embed=False)
    assert [A, B, C] == store.paths()


def test_an_unchanged_tree_with_duplicates_stays_unchanged(store: Store) -> None:
    """Remembered duplicates do not make a freshness check read or write anything."""
    seeded(store)
    store.commit({LARGER: ALPHA})
    store.indexer().update(embed=False)
    before = store.indexer().index_state()
    parser = CountingParser()
    report = store.indexer(parser=parser).update(embed=False)
    assert (True, [], before) == (report.unchanged, parser.parsed, store.indexer().index_state())


def test_a_duplicate_is_read_again_only_when_its_hash_may_be_free(store: Store) -> None:
    """An unrelated change leaves the duplicate unread; deleting its holder reads it."""
    seeded(store)
    store.commit({LARGER: ALPHA})
    store.indexer().update(embed=False)
    unrelated, freed = CountingParser(), CountingParser()
    beta = memory_bytes("Beta changed.", title="Beta")
    store.commit({B: beta})
    store.indexer(parser=unrelated).update(embed=False)
    store.commit(deletes=[A])
    store.indexer(parser=freed).update(embed=False)
    assert ([beta], [ALPHA], [B, C, LARGER]) == (unrelated.parsed, freed.parsed, store.paths())
