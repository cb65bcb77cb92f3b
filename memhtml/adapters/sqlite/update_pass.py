"""An incremental update: carry out an ``UpdatePlan`` against the index (SCHEMA §3.7).

Write phases, each in batches of at most ``WRITE_BATCH_SIZE`` statements: row moves and
removals; projections whose active content hash is free; then projections that had to wait
for a hash another file of this pass gives up. The watermark moves after the last batch, so a
failed pass is replayed whole by the next one.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

from memhtml.adapters import fault_point
from memhtml.adapters.sqlite.connection import Database, Write
from memhtml.adapters.sqlite.index_context import IndexContext
from memhtml.adapters.sqlite.index_state import record_head_writes, watermark_commit
from memhtml.adapters.sqlite.parsing import ParsedFile, SourceFile, parse_files
from memhtml.adapters.sqlite.projection import (
    DELETE_AUTHORED_EDGES_SQL,
    FileProjection,
    project_file,
    write_batches,
)
from memhtml.adapters.sqlite.rebuild_pass import holds_active_hash
from memhtml.adapters.sqlite.update_plan import UpdatePlan, plan_update
from memhtml.ports.errors import GitFailure
from memhtml.ports.git import blob_sha
from memhtml.ports.indexer import (
    SKIP_DUPLICATE_CONTENT,
    SKIP_UNREADABLE,
    IndexState,
    SkippedFile,
    UpdateReport,
)
from memhtml.ports.progress import NO_PROGRESS, ProgressSink

LOOKUP_SIZE: Final = 500
_SOURCE_EXISTS: Final = "EXISTS (SELECT 1 FROM files WHERE path = ?)"
# A value no sha256 hash equals, unique per path: parking a row's hash frees it for another
# file in the same transaction (two files that swapped contents), before the row's own
# projection writes its real hash back. Without it each would wait for the other forever.
PARKED_PREFIX: Final = "parked:"


def rename_writes(source: str, target: str, *, with_state: bool) -> list[Write]:
    """Move a row to a new path; chunks and vectors follow through ON UPDATE CASCADE.

    Each statement that could touch another file is guarded by the source row existing, so a
    move whose source was never indexed changes nothing. A stale row at the target goes first;
    edges have no foreign key and are moved by hand.
    """
    writes: list[Write] = [
        (f"DELETE FROM files WHERE path = ? AND {_SOURCE_EXISTS}", (target, source)),
        (f"DELETE FROM edges WHERE src_path = ? AND {_SOURCE_EXISTS}", (target, source)),
        # An edge to the new path would become a self-link, which the edges CHECK refuses.
        ("DELETE FROM edges WHERE src_path = ? AND dst_path = ?", (source, target)),
        ("UPDATE edges SET src_path = ? WHERE src_path = ?", (target, source)),
        ("UPDATE files SET path = ? WHERE path = ?", (target, source)),
    ]
    if with_state:
        # No foreign key crosses databases: the access row moves in the same batch (SCHEMA §4),
        # unless the target already has one of its own.
        writes.append(
            (
                "UPDATE state.access SET path = ? WHERE path = ? AND NOT EXISTS "
                "(SELECT 1 FROM state.access WHERE path = ?)",
                (target, source, target),
            )
        )
    return writes


def removal_writes(path: str) -> list[Write]:
    """Drop a file's row (children, chunks and vectors cascade) and its authored edges."""
    return [
        ("DELETE FROM files WHERE path = ?", (path,)),
        (DELETE_AUTHORED_EDGES_SQL, (path,)),
    ]


def run_update(
    context: IndexContext, state: IndexState, progress: ProgressSink = NO_PROGRESS
) -> tuple[UpdateReport, tuple[str, ...]]:
    """Apply committed and uncommitted changes since ``state``'s watermark; ``progress`` hears
    of the parsing phase.

    Returns:
        The report (``embeddings_written`` left 0) and the ids of the chunks this pass
        projected, which the caller embeds when asked to.
    """
    git, db = context.git, context.db
    head = git.head()
    working = git.status()
    watermark = watermark_commit(state)
    committed = git.diff(watermark, head) if head != watermark else ()
    plan = plan_update(committed, working, state.dirty_paths)
    if head == watermark and plan.empty:
        return UpdateReport(head_sha=head, unchanged=True), ()
    wrote = _write(db, [rename_writes(s, t, with_state=db.has_state) for s, t in plan.renames])
    files, skipped, vanished = _changed_sources(context, head, plan)
    outcomes = parse_files(files, context.parser, context.parse, progress)
    parsed = [outcome for outcome in outcomes if isinstance(outcome, ParsedFile)]
    skipped += [outcome for outcome in outcomes if isinstance(outcome, SkippedFile)]
    gone = [*plan.removals, *vanished, *(skip.path for skip in skipped)]
    wrote |= _write(db, [removal_writes(path) for path in gone])
    now = context.now()
    ready, waiting, duplicates = _claim_hashes(db, parsed, released=None)
    projections = [_projection(file, now) for file in ready]
    wrote |= _write(db, [projection.writes for projection in projections])
    # By the time the late projections run, the duplicates' rows are gone and every waiting
    # row is parked, so none of them holds a hash any more.
    released = {file.path for file in (*waiting, *duplicates)}
    late, _, late_duplicates = _claim_hashes(db, waiting, released=released)
    duplicates += late_duplicates
    late_projections = [_projection(file, now) for file in late]
    # Parks and late projections share one transaction: a parked row is never left behind.
    late_group = [
        *(_park(file.path) for file in late),
        *(write for projection in late_projections for write in projection.writes),
    ]
    wrote |= _write(db, [*(removal_writes(file.path) for file in duplicates), late_group])
    fault_point("update.projected")
    if wrote or head != watermark or plan.dirty_after != state.dirty_paths:
        db.write_all(
            record_head_writes(head_sha=head, dirty_paths=plan.dirty_after, now=now),
            operation="record update watermark",
        )
    skipped += [SkippedFile(path=f.path, reasons=(SKIP_DUPLICATE_CONTENT,)) for f in duplicates]
    report = UpdateReport(
        head_sha=head,
        added=plan.added,
        modified=plan.modified,
        removed=plan.removed,
        renamed=plan.renamed,
        dirty=plan.dirty,
        skipped=tuple(sorted(skipped, key=lambda skip: skip.path)),
    )
    chunk_ids = tuple(c.chunk_id for p in (*projections, *late_projections) for c in p.chunks)
    return report, chunk_ids


def _write(db: Database, groups: Iterable[Sequence[Write]]) -> bool:
    wrote = False
    for batch in write_batches(groups):
        db.write_all(batch, operation="update index")
        fault_point("update.batch")
        wrote = True
    return wrote


def _projection(file: ParsedFile, indexed_at: str) -> FileProjection:
    return project_file(path=file.path, blob_sha=file.blob_sha, doc=file.doc, indexed_at=indexed_at)


def _park(path: str) -> Write:
    return ("UPDATE files SET content_hash = ? WHERE path = ?", (PARKED_PREFIX + path, path))


def _changed_sources(
    context: IndexContext, head: str | None, plan: UpdatePlan
) -> tuple[list[SourceFile], list[SkippedFile], list[str]]:
    """The bytes of every planned path whose blob differs from its row's (or whose row moved).

    Returns:
        The files to parse, working files that could not be read (their rows go), and paths
        HEAD no longer lists after all (their rows go too).
    """
    git = context.git
    head_paths, work_paths = list(plan.from_head), list(plan.from_work)
    tree: dict[str, str] = {}
    if head is not None and head_paths:
        tree = {entry.path: entry.blob_sha for entry in git.list_tree(head, head_paths)}
    vanished = [path for path in head_paths if path not in tree]
    unreadable: list[SkippedFile] = []
    work: dict[str, bytes] = {}
    for path in work_paths:
        try:
            work[path] = git.read_working_file(path)
        except GitFailure:  # deleted since the status walk, or not a readable file
            unreadable.append(SkippedFile(path=path, reasons=(SKIP_UNREADABLE,)))
    stored = _stored_blobs(context.db, [*tree, *work])

    def changed(path: str, sha: str) -> bool:
        return path in plan.rename_targets or stored.get(path) != sha

    from_head = {path: sha for path, sha in tree.items() if changed(path, sha)}
    blobs = git.read_blobs(sorted(set(from_head.values()))) if from_head else {}
    files = [SourceFile(path=p, blob_sha=sha, data=blobs[sha]) for p, sha in from_head.items()]
    for path, data in work.items():
        sha = blob_sha(data)
        if changed(path, sha):
            files.append(SourceFile(path=path, blob_sha=sha, data=data))
    return sorted(files, key=lambda file: file.path), unreadable, vanished


def _stored_blobs(db: Database, paths: Sequence[str]) -> dict[str, str]:
    found: dict[str, str] = {}
    for start in range(0, len(paths), LOOKUP_SIZE):
        part = paths[start : start + LOOKUP_SIZE]
        marks = ", ".join("?" for _ in part)
        rows = db.all(
            f"SELECT path, blob_sha FROM files WHERE path IN ({marks})",
            part,
            operation="read stored blobs",
        )
        found.update((str(path), str(sha)) for path, sha in rows)
    return found


def _claim_hashes(
    db: Database, parsed: Sequence[ParsedFile], *, released: set[str] | None
) -> tuple[list[ParsedFile], list[ParsedFile], list[ParsedFile]]:
    """Split files into ready, waiting and duplicate, against the active hashes stored now.

    A file is ready when no other active non-task row holds its hash and no earlier file of
    this pass claimed it; it waits when every holder is itself being re-projected (and may be
    giving the hash up); otherwise it duplicates another memory and is skipped. With
    ``released`` (rows removed or parked before these projections, in the same transaction),
    nothing waits any more: a hash still held now stays held.
    """
    hashes = sorted({f.doc.content_hash for f in parsed if _holds(f)})
    holders = _active_holders(db, hashes)
    in_pass = {f.path for f in parsed}
    ready: list[ParsedFile] = []
    waiting: list[ParsedFile] = []
    duplicates: list[ParsedFile] = []
    claimed: set[str] = set()
    for file in parsed:
        if not _holds(file):
            ready.append(file)
            continue
        others = holders.get(file.doc.content_hash, set()) - {file.path} - (released or set())
        if file.doc.content_hash in claimed:
            duplicates.append(file)
        elif not others:
            claimed.add(file.doc.content_hash)
            ready.append(file)
        elif released is None and others <= in_pass:
            waiting.append(file)
        else:
            duplicates.append(file)
    return ready, waiting, duplicates


def _holds(file: ParsedFile) -> bool:
    return holds_active_hash(file.path, file.doc.memory_type)


def _active_holders(db: Database, hashes: Sequence[str]) -> dict[str, set[str]]:
    holders: dict[str, set[str]] = {}
    for start in range(0, len(hashes), LOOKUP_SIZE):
        part = hashes[start : start + LOOKUP_SIZE]
        marks = ", ".join("?" for _ in part)
        rows = db.all(
            "SELECT content_hash, path FROM files WHERE archived = 0 "
            f"AND memory_type <> 'task' AND content_hash IN ({marks})",
            part,
            operation="find content holders",
        )
        for content_hash, path in rows:
            holders.setdefault(str(content_hash), set()).add(str(path))
    return holders
