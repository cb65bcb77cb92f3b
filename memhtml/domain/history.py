"""Transaction time: which blob each path held along the indexed first-parent line
(docs/index-schema.md §7, ``--known-at``).

The line is HEAD's first parents, numbered from 1 at the oldest commit. A span says that ``path``
held ``blob_sha`` from the commit numbered ``from_seq`` up to, not including, ``until_seq``
(``None``: still held). "What the store knew at T" is the tree of the newest commit of the line
whose commit time is at or before T, which is the highest number whose time is not after T:
walking back from HEAD, that is the first commit not after T (``GitPort.commit_at``'s rule).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import attrs


@attrs.frozen(kw_only=True)
class LineCommit:
    """One commit of the first-parent line: its number, sha and commit time (Unix seconds)."""

    seq: int
    sha: str
    at: int


@attrs.frozen(kw_only=True)
class Span:
    """``path`` held ``blob_sha`` from commit ``from_seq`` until ``until_seq`` (exclusive)."""

    path: str
    blob_sha: str
    from_seq: int
    until_seq: int | None = None

    def covers(self, seq: int) -> bool:
        """Whether the commit numbered ``seq`` held this blob at this path."""
        return self.from_seq <= seq and (self.until_seq is None or seq < self.until_seq)


@attrs.frozen(kw_only=True)
class SpanStep:
    """What one commit changes: the paths whose open span closes, and the spans it opens."""

    closed: tuple[str, ...]
    opened: tuple[Span, ...]


def span_step(open_blobs: Mapping[str, str], seq: int, tree: Mapping[str, str | None]) -> SpanStep:
    """The spans commit ``seq`` closes and opens.

    Args:
        open_blobs: The blob each path holds before the commit.
        seq: The commit's number.
        tree: For each path the commit may have changed, its blob after the commit (``None``:
            gone). A path whose blob did not change is neither closed nor opened.
    """
    closed: list[str] = []
    opened: list[Span] = []
    for path in sorted(tree):
        before, after = open_blobs.get(path), tree[path]
        if before == after:
            continue
        if before is not None:
            closed.append(path)
        if after is not None:
            opened.append(Span(path=path, blob_sha=after, from_seq=seq))
    return SpanStep(closed=tuple(closed), opened=tuple(opened))


def seq_known_at(commits: Iterable[LineCommit], epoch_seconds: int) -> LineCommit | None:
    """The highest-numbered commit whose time is at or before ``epoch_seconds``; ``None`` when
    every commit is younger (the store knew nothing then)."""
    best: LineCommit | None = None
    for commit in commits:
        if commit.at <= epoch_seconds and (best is None or commit.seq > best.seq):
            best = commit
    return best


def blobs_at(spans: Iterable[Span], seq: int) -> dict[str, str]:
    """The tree of commit ``seq``: each path's blob, from the spans covering it."""
    return {span.path: span.blob_sha for span in spans if span.covers(seq)}


def replay_spans(trees: Sequence[Mapping[str, str]]) -> tuple[Span, ...]:
    """The spans of a line whose commits (numbered from 1) hold ``trees``: the brute-force twin
    of maintaining spans commit by commit."""
    spans: list[Span] = []
    open_at: dict[str, Span] = {}
    for seq, tree in enumerate(trees, start=1):
        for path in sorted(set(open_at) | set(tree)):
            current = open_at.get(path)
            blob = tree.get(path)
            if current is not None and current.blob_sha == blob:
                continue
            if current is not None:
                spans.append(attrs.evolve(current, until_seq=seq))
                del open_at[path]
            if blob is not None:
                open_at[path] = Span(path=path, blob_sha=blob, from_seq=seq)
    spans.extend(open_at.values())
    return tuple(sorted(spans, key=lambda s: (s.path, s.from_seq)))
