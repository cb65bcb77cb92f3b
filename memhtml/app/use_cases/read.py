"""``read <path>``: one memory's fields, its article, and a salience bump
(docs/cli-contract.md §3.2).

Reading a named memory is evidence that it was used (docs/ranking.md §9.1), so it bumps the access
count through the same cooldown as ``reinforce``; being listed by search or recall is not.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from typing import Any, Final

import attrs

from memhtml.app.use_cases.freshness import ensure_fresh
from memhtml.app.use_cases.known_at import PastVersionMemo
from memhtml.domain.datetimes import utc_stamp
from memhtml.domain.errors import InvalidInput, MemhtmlError, NotFound
from memhtml.domain.findings import Finding
from memhtml.domain.instants import instant_ms
from memhtml.domain.model import MemoryDoc
from memhtml.domain.paths import is_archived_path, is_indexable_path
from memhtml.domain.placement import repo_path
from memhtml.domain.reinforce import Signal
from memhtml.domain.snippets import VECTOR_COVERAGE_FLOOR
from memhtml.ports.clock import Clock
from memhtml.ports.errors import GitFailure
from memhtml.ports.git import GitPort, PathRefused
from memhtml.ports.history_store import HistoryStore
from memhtml.ports.indexer import Indexer
from memhtml.ports.link_graph import LinkGraph
from memhtml.ports.memory_parser import MemoryParser
from memhtml.ports.recorder import LINK_KINDS, LinkKind, Recorder, SessionLink
from memhtml.ports.retrieval import Retrieval

logger = logging.getLogger("memhtml")

MetaValue = str | int | float | bool

_ARTICLE_OPEN: Final = re.compile(r"<article(?=[\s>/])[^>]*>", re.IGNORECASE)
_ARTICLE_CLOSE: Final = re.compile(r"</article\s*>", re.IGNORECASE)


@attrs.frozen(kw_only=True)
class ReadPorts:
    """What the read-side use cases are handed (the facade builds it from the wired ports).

    Attributes:
        git: Reads working-tree files.
        indexer: Brought up to date before each read (docs/decisions.md §20).
        retrieval: Search, recall and the salience bump.
        recorder: Files session links.
        clock: Stamps session links.
        parse: Memory file bytes to ``MemoryDoc``.
        embed: Whether the freshness update embeds new chunks.
        links: The index's edges, for the memory's inbound links; ``None`` reads none.
        vector_floor: The coverage under which search drops the vector arm, for the reason
            a degraded result gives.
        history: The transaction-time spans (``--known-at`` on search, recall and list);
            ``None`` refuses it.
        fts_tokenizer: The index's full-text tokenizer, for ranking past versions alike.
        past_memo: Past versions already parsed in this process (``--known-at``).
        prefetch_query: Starts embedding a search's query while the index catches up
            (``app.retrieval.query_prefetch``); ``None`` embeds it when the vector arm asks.
    """

    git: GitPort
    indexer: Indexer
    retrieval: Retrieval
    recorder: Recorder
    clock: Clock
    parse: MemoryParser
    embed: bool
    links: LinkGraph | None = None
    vector_floor: float = VECTOR_COVERAGE_FLOOR
    history: HistoryStore | None = None
    fts_tokenizer: str = "unicode61"
    past_memo: PastVersionMemo | None = None
    prefetch_query: Callable[[str], None] | None = None


@attrs.frozen(kw_only=True)
class ReadLink:
    """One authored edge of the memory's head, its target written as an href (``/path``)."""

    rel: str
    href: str


@attrs.frozen(kw_only=True)
class InboundLink:
    """Another memory's link to this one, as the index holds it: its source as an href
    (``/path``), the relation, and whether sleep mined it rather than an author writing it."""

    rel: str
    href: str
    derived: bool


@attrs.frozen(kw_only=True)
class SessionTouch:
    """One agent session that touched the memory (``memory_session_links``).

    Attributes:
        session_id: The session.
        kinds: How it touched it (``wrote``, ``read``, ``corrected``, ``reinforced``), in that
            order.
        first_at, last_at: Its first and latest link to the memory.
    """

    session_id: str
    kinds: tuple[str, ...]
    first_at: str
    last_at: str


def sessions_touching(links: tuple[SessionLink, ...]) -> tuple[SessionTouch, ...]:
    """One entry per session in ``links``, ordered by first touch, then session id."""
    grouped: dict[str, list[SessionLink]] = {}
    for link in links:
        grouped.setdefault(link.session_id, []).append(link)
    touches = [
        SessionTouch(
            session_id=session_id,
            kinds=tuple(k for k in LINK_KINDS if any(link.kind == k for link in group)),
            first_at=min(link.at for link in group),
            last_at=max(link.at for link in group),
        )
        for session_id, group in grouped.items()
    ]
    return tuple(sorted(touches, key=lambda t: (t.first_at, t.session_id)))


@attrs.frozen(kw_only=True)
class ReadResult:
    """``memory.detail``.

    Attributes:
        path: The repo path, without a leading ``/``.
        title: ``<title>``.
        metas: ``(name, value)`` for each meta the file states, camel-cased without the
            ``memhtml-`` prefix, in the format's emission order (see :func:`present_metas`).
        entities: ``type:name`` references, as the file lists them.
        tags: The file's tags.
        links: Authored edges.
        inbound_links: Other memories' links to this one, by source then relation.
        gist: The claim.
        body: The article's text.
        html: The article's inner HTML, verbatim from the file.
        archived: The file lies under ``archive/``.
        warnings: Non-blocking format findings.
        sessions: The agent sessions linked to this memory, this read's included.
        index_fresh, index_update_ms: See :class:`memhtml.app.use_cases.freshness.Freshness`.
        known_at_commit: With ``--known-at``, the commit whose tree answered (the last at or
            before the instant); else ``None``. Such a read does not consult the index, so
            ``index_fresh`` is true and ``index_update_ms`` 0.
    """

    path: str
    title: str
    metas: tuple[tuple[str, MetaValue], ...]
    entities: tuple[str, ...]
    tags: tuple[str, ...]
    links: tuple[ReadLink, ...]
    gist: str
    body: str
    html: str
    archived: bool
    warnings: tuple[Finding, ...]
    sessions: tuple[SessionTouch, ...]
    index_fresh: bool
    index_update_ms: float
    inbound_links: tuple[InboundLink, ...] = ()
    known_at_commit: str | None = None


def present_metas(doc: MemoryDoc) -> tuple[tuple[str, MetaValue], ...]:
    """The metas a file states, derived from its parsed fields.

    ``MemoryDoc`` keeps typed values, not which metas were written, so presence is read off
    the values: an optional meta is present when it is not None (``needsRevision`` when true,
    ``reprieves`` when non-zero). ``confidence``, ``importance`` and ``author`` always appear
    with their effective values, since the column default is what every consumer acts on.
    ``contentHash`` is the hash the file states, not the recomputed one.
    """
    pairs: list[tuple[str, MetaValue | None]] = [
        ("memoryType", doc.memory_type),
        ("status", doc.status),
        ("createdAt", doc.created_at),
        ("updatedAt", doc.updated_at),
        ("confidence", doc.confidence),
        ("importance", doc.importance),
        ("contentHash", doc.stated_content_hash),
        ("author", doc.author),
        ("sessionId", doc.session_id),
        ("promptId", doc.prompt_id),
        ("turnUuid", doc.turn_uuid),
        ("validFrom", doc.valid_from),
        ("validUntil", doc.valid_until),
        ("reprieves", doc.reprieves or None),
        ("archivedAt", doc.archived_at),
        ("supersededBy", doc.superseded_by),
        ("needsRevision", True if doc.needs_revision else None),
        ("taskStatus", doc.task_status),
        ("dueAt", doc.due_at),
        ("pinned", True if doc.pinned else None),
    ]
    return tuple((name, value) for name, value in pairs if value is not None)


def article_inner_html(text: str) -> str:
    """The markup between the first ``<article …>`` and the last ``</article>``; ``""`` if none.

    Taken from the file text rather than re-serialised from a parse tree, so the caller sees
    the bytes the author wrote (attribute order, entities, whitespace).
    """
    opening = _ARTICLE_OPEN.search(text)
    if opening is None:
        return ""
    closings = list(_ARTICLE_CLOSE.finditer(text, opening.end()))
    end = closings[-1].start() if closings else len(text)
    return text[opening.end() : end]


def read_with(
    ports: ReadPorts,
    raw_path: str,
    *,
    session_id: str | None = None,
    prompt_id: str | None = None,
    turn_uuid: str | None = None,
    known_at: str | None = None,
) -> ReadResult:
    """Read one memory from the working tree, bump it (neutral, cooldown applies), link it.

    With ``known_at`` the memory is read as the store knew it then instead: the file's bytes in
    the tree of the last commit at or before that instant (transaction time, not ``--as-of``'s
    valid time). Such a read is history, so it bumps nothing, links no session, and lists no
    inbound links or sessions (the index holds today's, not those of then).

    Order: freshness first, so the bump finds the row of a file written a moment ago; then the
    file; then the bump; then a ``read`` session link when a session is named. A bump or a link
    that fails is logged, never raised: the caller asked for the memory, and has it.

    Args:
        ports: The collaborators.
        raw_path: The memory's path; a leading ``/`` is stripped.
        session_id, prompt_id, turn_uuid: Who is reading, for the session link.
        known_at: A normalised UTC stamp (``domain/user_instants``): read the file as of then.

    Raises:
        InvalidInput: The path could leave the repository, or ``known_at`` is unreadable.
        NotFound: No memory file at the path (at ``known_at``: none in that commit's tree, or
            no commit that old).
        InvalidMemory: The file fails to parse.
    """
    path = repo_path(raw_path, "path")
    if not is_indexable_path(path):
        raise NotFound(f"no memory at {path}")
    if known_at is not None:
        return _read_known_at(ports, path, known_at)
    freshness = ensure_fresh(ports.indexer, embed=ports.embed)
    data = _working_file(ports.git, path)
    doc = ports.parse(data)
    _bump(ports.retrieval, path)
    if session_id:
        record_session_link(ports, "read", (path,), session_id, prompt_id, turn_uuid)
    return _result(
        path,
        data,
        doc,
        sessions=_sessions(ports.recorder, path),
        index_fresh=freshness.index_fresh,
        index_update_ms=freshness.index_update_ms,
        inbound_links=_inbound(ports.links, path),
    )


def _read_known_at(ports: ReadPorts, path: str, known_at: str) -> ReadResult:
    """The file at ``path`` in the tree of the last commit at or before ``known_at``."""
    ms = instant_ms(known_at)
    if ms is None:
        raise InvalidInput("--known-at must be an ISO date or date-time")
    commit = ports.git.commit_at(ms // 1000)
    entries = [] if commit is None else ports.git.list_tree(commit, [path])
    blob = next((entry.blob_sha for entry in entries if entry.path == path), None)
    if commit is None or blob is None:
        raise NotFound(f"no memory at {path} at {known_at}")
    data = ports.git.read_blobs([blob])[blob]
    return _result(
        path,
        data,
        ports.parse(data),
        sessions=(),
        index_fresh=True,
        index_update_ms=0.0,
        known_at_commit=commit,
    )


def _result(path: str, data: bytes, doc: MemoryDoc, **state: Any) -> ReadResult:
    """What ``read`` shows of a parsed file; ``state`` says where it was read from."""
    return ReadResult(
        path=path,
        title=doc.title,
        metas=present_metas(doc),
        entities=tuple(entity.ref for entity in doc.entities),
        tags=doc.tags,
        links=tuple(ReadLink(rel=link.rel, href=f"/{link.target}") for link in doc.links),
        gist=doc.gist,
        body=doc.body_text,
        html=article_inner_html(data.decode("utf-8", errors="replace")),
        archived=is_archived_path(path),
        warnings=doc.warnings,
        **state,
    )


def record_session_link(
    ports: ReadPorts,
    kind: LinkKind,
    paths: tuple[str, ...],
    session_id: str,
    prompt_id: str | None,
    turn_uuid: str | None,
) -> None:
    """File one session link per path; a failure is logged, since the read itself succeeded."""
    at = utc_stamp(ports.clock.now())
    links = [
        SessionLink(
            path=path,
            session_id=session_id,
            kind=kind,
            at=at,
            prompt_id=prompt_id,
            turn_uuid=turn_uuid,
        )
        for path in paths
    ]
    try:
        ports.recorder.record_session_links(links)
    except MemhtmlError as error:
        logger.warning("session links were not recorded (%s)", error)


def _inbound(links: LinkGraph | None, path: str) -> tuple[InboundLink, ...]:
    """Links whose target is ``path``; the memory's own links are ``links``, from the file."""
    if links is None:
        return ()
    return tuple(
        InboundLink(rel=link.rel, href=f"/{link.src}", derived=link.derived)
        for link in links.links_touching([path])
        if link.dst == path
    )


def _sessions(recorder: Recorder, path: str) -> tuple[SessionTouch, ...]:
    try:
        return sessions_touching(recorder.session_links(path=path))
    except MemhtmlError as error:
        logger.warning("read %s without its sessions (%s)", path, error)
        return ()


def _working_file(git: GitPort, path: str) -> bytes:
    try:
        return git.read_working_file(path)
    except PathRefused as error:
        raise InvalidInput("path must be a path inside the repository") from error
    except GitFailure as error:
        # The port reports a missing file as a GitFailure; after the safety check above, a
        # path that cannot be read is, for the caller, a memory that is not there.
        raise NotFound(f"no memory at {path}") from error


def _bump(retrieval: Retrieval, path: str) -> None:
    try:
        retrieval.reinforce((path,), Signal.NEUTRAL)
    except NotFound:
        # On disk but not in the index (a duplicate the indexer skipped, or an index that could
        # not be updated): the file is still readable, there is just no row to bump.
        logger.warning("read %s without a salience bump: it is not in the index", path)
    except MemhtmlError as error:
        logger.warning("read %s without a salience bump (%s)", path, error)
