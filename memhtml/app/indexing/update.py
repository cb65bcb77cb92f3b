"""An incremental update: carry out an ``UpdatePlan`` against the index (docs/index-schema.md §3.7).

Write phases: row moves, then removals; the rows of stored holders a smaller path of this pass
displaces; projections whose active content hash is free; then the duplicates' rows removed and
the projections that had to wait for a hash another row of this pass gives up. The watermark
moves after the last write, with the skipped duplicates remembered beside it, so a failed pass
is replayed whole by the next one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import attrs

from memhtml.app.indexing.context import IndexContext
from memhtml.app.indexing.parse_pool import SourceFile, parse_files
from memhtml.domain.content_claims import (
    Claims,
    ParsedFile,
    claim_hashes,
    duplicate_hashes,
    duplicates_to_revisit,
    hashes_to_check,
    remembered_after,
)
from memhtml.domain.model import MemoryDoc
from memhtml.domain.projection import FileProjection, project_file
from memhtml.domain.update_plan import UpdatePlan, plan_update
from memhtml.faults import fault_point
from memhtml.ports.errors import GitFailure
from memhtml.ports.git import blob_sha
from memhtml.ports.index_store import IndexStore
from memhtml.ports.indexer import (
    SKIP_DUPLICATE_CONTENT,
    SKIP_UNREADABLE,
    IndexState,
    SkippedFile,
    UpdateReport,
    watermark_commit,
)
from memhtml.ports.progress import NO_PROGRESS, ProgressSink


def run_update(
    context: IndexContext,
    state: IndexState,
    progress: ProgressSink = NO_PROGRESS,
    *,
    known: Mapping[bytes, MemoryDoc] | None = None,
    committed_only: bool = False,
) -> tuple[UpdateReport, tuple[str, ...]]:
    """Apply committed and uncommitted changes since ``state``'s watermark.

    ``progress`` hears of the parsing phase; files whose exact bytes ``known`` holds are not
    parsed again. ``committed_only`` applies the commits alone and never walks the working
    tree (see ``Indexer.update``): the paths the last pass read from the working tree stay
    recorded as dirty, so the next full pass revisits them.

    Returns:
        The report (``embeddings_written`` left 0) and the ids of the chunks this pass
        projected, which the caller embeds when asked to.
    """
    git, store = context.git, context.store
    head = git.head()
    watermark = watermark_commit(state)
    committed = git.diff(watermark, head) if head != watermark else ()
    working = None if committed_only else git.status()
    if working is None:
        plan = attrs.evolve(plan_update(committed, ()), dirty_after=state.dirty_paths)
    else:
        plan = plan_update(committed, working, state.dirty_paths)
    if head == watermark and (plan.empty or committed_only):
        store.refresh_context()  # an index migrated since its last pass; else nothing to do
        return UpdateReport(head_sha=head, unchanged=True, working=working), ()
    # Who holds each remembered duplicate's hash, asked before any row moves or goes.
    remembered = store.skipped_duplicates()
    held_before = store.active_hash_holders(sorted(set(remembered.values())))
    wrote = bool(plan.renames)
    store.move_rows(plan.renames, with_state=store.has_state)
    _batch_done(wrote)
    files, skipped, vanished = _changed_sources(context, head, plan)
    touched = {*plan.removals, *vanished, *(s.path for s in skipped), *(f.path for f in files)}
    revisit = duplicates_to_revisit(remembered, held_before, touched)
    files += _head_sources(context, head, revisit)
    files.sort(key=lambda file: file.path)
    outcomes = parse_files(files, context.parser, context.parse, progress, known=known)
    parsed = [outcome for outcome in outcomes if isinstance(outcome, ParsedFile)]
    skipped += [outcome for outcome in outcomes if isinstance(outcome, SkippedFile)]
    gone = [*plan.removals, *vanished, *(skip.path for skip in skipped)]
    wrote |= bool(gone)
    store.remove_rows(gone)
    _batch_done(bool(gone))
    now = context.now()
    claims = claim_hashes(parsed, store.active_hash_holders(hashes_to_check(parsed)))
    projections = _write_claims(store, claims, now)
    wrote |= bool(projections or claims.displaced or claims.duplicates)
    fault_point("update.projected")
    duplicates = duplicate_hashes(claims)
    # Every planned path is decided by now: read again, removed, or unchanged with its row.
    decided = {*plan.removals, *plan.from_head, *plan.from_work, *touched, *revisit}
    after = remembered_after(remembered, held_before, decided, duplicates)
    moved = head != watermark or plan.dirty_after != state.dirty_paths or after != remembered
    if wrote or moved:
        # Before the watermark moves: a pass that dies in between is replayed, refresh and all.
        store.refresh_context()
        store.record_head(head_sha=head, dirty_paths=plan.dirty_after, duplicates=after, now=now)
        working = None  # time passed since the walk: a caller that needs the tree walks again
    skipped += [SkippedFile(path=path, reasons=(SKIP_DUPLICATE_CONTENT,)) for path in duplicates]
    report = UpdateReport(
        head_sha=head,
        added=plan.added,
        modified=plan.modified,
        removed=plan.removed,
        renamed=plan.renamed,
        dirty=plan.dirty,
        skipped=tuple(sorted(skipped, key=lambda skip: skip.path)),
        working=working,
    )
    chunk_ids = tuple(c.chunk_id for p in projections for c in p.chunks)
    return report, chunk_ids


def _write_claims(store: IndexStore, claims: Claims, now: str) -> list[FileProjection]:
    """Carry the claims out in the order the active-hash uniqueness allows; return every
    projection written."""
    if claims.displaced:
        # Remembered first: a pass that dies after the removal must not forget the file.
        store.remember_duplicates(dict(claims.displaced))
        store.remove_rows([path for path, _ in claims.displaced])
        _batch_done(True)
    ready = [_projection(file, now) for file in claims.ready]
    store.write_projections(ready)
    _batch_done(bool(ready))
    # The duplicates' rows go and every waiting row is parked, in the order that frees each
    # waiting file's hash before its projection lands.
    removals = [file.path for file in claims.duplicates]
    late = [_projection(file, now) for file in claims.waiting]
    if removals or late:
        store.replace_parked(removals, late)
        _batch_done(True)
    return [*ready, *late]


def _batch_done(wrote: bool) -> None:
    if wrote:
        fault_point("update.batch")


def _projection(file: ParsedFile, indexed_at: str) -> FileProjection:
    return project_file(path=file.path, blob_sha=file.blob_sha, doc=file.doc, indexed_at=indexed_at)


def _head_sources(
    context: IndexContext, head: str | None, paths: Sequence[str]
) -> list[SourceFile]:
    """The bytes at HEAD of remembered duplicates read again (no change touched them, so the
    working tree holds the same); a path HEAD no longer lists is left out."""
    if head is None or not paths:
        return []
    asked = set(paths)
    listed = context.git.list_tree(head, paths)
    wanted = {entry.path: entry.blob_sha for entry in listed if entry.path in asked}
    blobs = context.git.read_blobs(sorted(set(wanted.values()))) if wanted else {}
    return [SourceFile(path=p, blob_sha=sha, data=blobs[sha]) for p, sha in wanted.items()]


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
    stored = context.store.stored_blobs([*tree, *work])

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
