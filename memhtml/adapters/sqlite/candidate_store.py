"""``SqliteCandidateStore``: rows, snippets and entity references of fused paths."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

from memhtml.adapters.sqlite.candidate_sql import CANDIDATE_SQL, ENTITY_SQL, snippet_sql
from memhtml.adapters.sqlite.connection import Database, SqlValue
from memhtml.domain.vectors import pack_f32
from memhtml.ports.candidate_store import CandidateRow
from memhtml.ports.embedder import Vector


class SqliteCandidateStore:
    """The :class:`memhtml.ports.candidate_store.CandidateStore` port over one SQLite index."""

    def __init__(self, db: Database) -> None:
        """Read from ``db``."""
        self._db = db

    def candidate_rows(self, paths: Sequence[str], model: str | None) -> Mapping[str, CandidateRow]:
        """See ``CandidateStore.candidate_rows``."""
        if not paths:
            return {}
        rows = self._db.all(
            CANDIDATE_SQL, (json.dumps(list(paths)), model), operation="read search candidates"
        )
        found: dict[str, CandidateRow] = {}
        for row in rows:
            path, title, gist, kind, confidence, updated, disclosure, blob, superseded = row[:9]
            importance, pinned, tags = row[9:]
            found.setdefault(
                str(path),
                CandidateRow(
                    title=str(title),
                    gist=str(gist),
                    memory_type=str(kind),
                    confidence=_real(confidence),
                    updated_at=str(updated),
                    disclosure_text=str(disclosure),
                    vector_blob=blob if isinstance(blob, bytes) else None,
                    superseded_by=text_or_none(superseded),
                    importance=importance if isinstance(importance, int) else 5,
                    pinned=bool(pinned),
                    tags=tuple(json.loads(str(tags))) if tags is not None else (),
                ),
            )
        return found

    def snippets(
        self, paths: Sequence[str], query_vector: Vector | None, model: str | None
    ) -> Mapping[str, str]:
        """See ``CandidateStore.snippets``."""
        if not paths:
            return {}
        params: tuple[SqlValue, ...] = (
            None if query_vector is None else pack_f32(query_vector),
            model,
            json.dumps(list(paths)),
        )
        rows = self._db.all(
            snippet_sql(with_vector=query_vector is not None), params, operation="read snippets"
        )
        return {str(path): str(text) for path, text in rows}

    def entity_refs(self, paths: Sequence[str]) -> Mapping[str, tuple[str, ...]]:
        """See ``CandidateStore.entity_refs``."""
        found: dict[str, list[str]] = {}
        if not paths:
            return {}
        rows = self._db.all(ENTITY_SQL, (json.dumps(list(paths)),), operation="read entities")
        for path, reference in rows:
            found.setdefault(str(path), []).append(str(reference))
        return {path: tuple(sorted(refs)) for path, refs in found.items()}


def text_or_none(value: SqlValue) -> str | None:
    """A nullable text column as ``str`` or ``None``."""
    return None if value is None else str(value)


def _real(value: SqlValue) -> float:
    return float(value) if isinstance(value, int | float) else 0.0
