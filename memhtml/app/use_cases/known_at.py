"""``--known-at T`` on search, recall and list: what the store knew at T (transaction time,
docs/index-schema.md §7, docs/ranking.md §12).

The index brought up to date, the instant is resolved to the newest commit of the indexed
first-parent line not after it; today's rows are masked to the blobs that commit held
(``SearchScope.known_seq``, every arm exact for them), and the versions of then that no row
holds any more are read from git, projected, and ranked by full text alone (``past``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import attrs

from memhtml.domain.errors import InvalidInput, InvalidMemory
from memhtml.domain.history import LineCommit
from memhtml.domain.instants import instant_ms
from memhtml.domain.past_versions import PastVersion, past_version
from memhtml.domain.projection import project_file
from memhtml.domain.user_instants import normalize_user_instant
from memhtml.ports.errors import IndexStale
from memhtml.ports.git import GitPort
from memhtml.ports.history_store import HistoryStore
from memhtml.ports.memory_parser import MemoryParser

NO_HISTORY_REASON: Final = (
    "it holds no transaction-time history (indexed before --known-at existed, or its "
    "history was rewritten), so --known-at cannot answer"
)
_PROJECTED_AT: Final = "1970-01-01T00:00:00Z"


class PastVersionMemo:
    """Past versions parsed and tokenized once per process, by (path, blob, tokenizer): a blob
    never changes, so an entry is never stale. Bounded; when full it starts over."""

    def __init__(self, limit: int = 50_000) -> None:
        """Empty, holding at most ``limit`` versions."""
        self._limit = limit
        self._held: dict[tuple[str, str, str], PastVersion | None] = {}

    def get(self, key: tuple[str, str, str]) -> PastVersion | bool | None:
        """The version, ``None`` for a blob that did not parse, ``False`` when not held."""
        return self._held.get(key, False)

    def put(self, key: tuple[str, str, str], version: PastVersion | None) -> None:
        """Remember ``version`` (``None``: the blob does not parse)."""
        if len(self._held) >= self._limit:
            self._held.clear()
        self._held[key] = version


@attrs.frozen(kw_only=True)
class KnownAtView:
    """What the store knew at an instant.

    Attributes:
        at: The instant asked about (a normalised UTC stamp).
        commit: The commit whose tree answers; ``None`` when the store knew nothing then.
        past: The versions of then that no indexed row holds, projected (path order); a file
            that does not parse is left out, as the indexer would have.
    """

    at: str
    commit: LineCommit | None
    past: tuple[PastVersion, ...]

    @property
    def seq(self) -> int:
        """The mask's commit number; 0 (no commit) admits nothing."""
        return 0 if self.commit is None else self.commit.seq


def known_at_view(
    history: HistoryStore | None,
    git: GitPort,
    parse: MemoryParser,
    known_at: str,
    *,
    tokenizer: str,
    memo: PastVersionMemo | None = None,
) -> KnownAtView:
    """Resolve ``known_at`` against the spans (call after the index update).

    Raises:
        InvalidInput: ``known_at`` is not a readable instant.
        IndexStale: The index holds no history (``index rebuild`` builds it).
    """
    known_at = normalize_user_instant(known_at, "--known-at")  # a library caller's ISO form
    ms = instant_ms(known_at)
    if ms is None:
        raise InvalidInput("--known-at must be an ISO date or date-time")
    if history is None or not history.history_state().built:
        raise IndexStale(NO_HISTORY_REASON)
    commit = history.commit_known_at(ms // 1000)
    if commit is None:
        return KnownAtView(at=known_at, commit=None, past=())
    memo = memo if memo is not None else PastVersionMemo()
    spans = history.unindexed_at(commit.seq)
    keys = [(span.path, span.blob_sha, tokenizer) for span in spans]
    missing = sorted({key[1] for key in keys if memo.get(key) is False})
    blobs = git.read_blobs(missing) if missing else {}
    past: list[PastVersion] = []
    for key in keys:
        held = memo.get(key)
        if held is False:
            held = _projected(key[0], key[1], blobs[key[1]], parse, tokenizer)
            memo.put(key, held)
        if isinstance(held, PastVersion):
            past.append(held)
    return KnownAtView(at=known_at, commit=commit, past=tuple(past))


def _projected(
    path: str, blob: str, data: bytes, parse: MemoryParser, tokenizer: str
) -> PastVersion | None:
    try:
        doc = parse(data)
    except InvalidMemory:
        return None  # the indexer skips such a file; so does the past
    projection = project_file(path=path, blob_sha=blob, doc=doc, indexed_at=_PROJECTED_AT)
    return past_version(projection, tokenizer)


def past_reason(view: KnownAtView, matched: Sequence[str]) -> str | None:
    """Why a ``--known-at`` result is degraded, or ``None`` when no past version took part."""
    if not matched:
        return None
    return (
        f"{len(matched)} memories the store knew at {view.at} have changed, moved or gone "
        "since; their versions of then are ranked by full text alone (arm past)"
    )
