"""The transaction-time rules (``domain/history``): spans kept commit by commit equal spans
replayed from the trees, cover exactly each commit's tree, and the instant rule picks the
commit a walk back from HEAD would."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from memhtml.domain.history import (
    LineCommit,
    Span,
    blobs_at,
    replay_spans,
    seq_known_at,
    span_step,
)

trees = st.lists(
    st.dictionaries(st.sampled_from("abcd"), st.sampled_from(("b1", "b2", "b3")), max_size=4),
    min_size=1,
    max_size=8,
)


def stepped(history: list[dict[str, str]]) -> tuple[Span, ...]:
    """Spans maintained as the indexer does: one ``span_step`` per commit over its changes."""
    spans: dict[tuple[str, int], Span] = {}
    open_blobs: dict[str, str] = {}
    open_key: dict[str, tuple[str, int]] = {}
    previous: dict[str, str] = {}
    for seq, tree in enumerate(history, start=1):
        changed = {
            p: tree.get(p) for p in set(previous) | set(tree) if previous.get(p) != tree.get(p)
        }
        step = span_step(open_blobs, seq, changed)
        for path in step.closed:
            key = open_key.pop(path)
            spans[key] = Span(
                path=path, blob_sha=spans[key].blob_sha, from_seq=key[1], until_seq=seq
            )
            del open_blobs[path]
        for span in step.opened:
            spans[(span.path, span.from_seq)] = span
            open_key[span.path] = (span.path, span.from_seq)
            open_blobs[span.path] = span.blob_sha
        previous = tree
    return tuple(sorted(spans.values(), key=lambda s: (s.path, s.from_seq)))


@given(history=trees)
def test_stepped_spans_equal_replayed_spans(history: list[dict[str, str]]) -> None:
    """Keeping spans commit by commit gives the spans a replay of the whole line gives."""
    assert replay_spans(history) == stepped(history)


@given(history=trees)
def test_spans_cover_exactly_each_commits_tree(history: list[dict[str, str]]) -> None:
    """The spans covering commit i are exactly the blobs its tree holds."""
    spans = replay_spans(history)
    assert history == [blobs_at(spans, seq) for seq in range(1, len(history) + 1)]


@given(history=trees)
def test_a_path_holds_one_span_per_commit(history: list[dict[str, str]]) -> None:
    """No two spans of one path overlap, and none is empty."""
    spans = replay_spans(history)
    for seq in range(1, len(history) + 2):
        covering = [s.path for s in spans if s.covers(seq)]
        assert len(covering) == len(set(covering))
    assert all(s.until_seq is None or s.until_seq > s.from_seq for s in spans)


@given(
    times=st.lists(st.integers(0, 50), min_size=0, max_size=10),
    instant=st.integers(-5, 60),
)
def test_known_at_picks_the_first_commit_not_after_walking_back(
    times: list[int], instant: int
) -> None:
    """Walking back from the newest commit, the first whose time is not after the instant wins,
    even when commit times run backwards."""
    commits = [LineCommit(seq=i, sha=f"c{i}", at=t) for i, t in enumerate(times, start=1)]
    walked = next((c for c in reversed(commits) if c.at <= instant), None)
    assert walked == seq_known_at(commits, instant)


def test_an_unchanged_blob_keeps_its_span() -> None:
    """A commit that leaves a path's blob alone neither closes nor opens its span."""
    step = span_step({"a": "b1", "b": "b2"}, 3, {"a": "b1", "b": None, "c": "b3"})
    assert (("b",), (Span(path="c", blob_sha="b3", from_seq=3),)) == (step.closed, step.opened)
