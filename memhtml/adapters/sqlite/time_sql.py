"""The time arms in SQL: the memories inside the day windows a query names (docs/ranking.md §2.8).

The twins are ``MemoryRankStore._time`` and ``MemoryRankStore._time_words``. ``arm_sql`` fills
these templates with the statement's placeholders; the window test is shared by both arms.
"""

from __future__ import annotations

from memhtml.adapters.sqlite.scope_sql import text_literal
from memhtml.domain.fts_query import ALL_JOINER, ANY_JOINER


def inside_windows_sql(windows_param: int, rowid: str = "f.rowid") -> str:
    """Whether the file at ``rowid`` has its day inside one of the windows at ``?windows_param``.

    Days compare as text: the stamp's first ten characters against ISO bounds
    (``domain.query_dates.DateWindow.holds``). The set of files inside some window is computed
    once, each window a range of migration 0012's index on that very expression.
    """
    return (
        f"{rowid} IN (SELECT g.rowid FROM json_each(?{windows_param}) w JOIN files g "
        "ON substr(coalesce(g.event_at, g.created_at), 1, 10) "
        "BETWEEN substr(w.value, 1, 10) AND substr(w.value, 12))"
    )


def time_by_vector_sql(
    scope: str, *, windows_param: int, vector_param: int, limit_param: int, embed_model: str
) -> str:
    """``(path, rank)``: the windowed files nearest the query vector, a file by its best chunk."""
    return (
        "SELECT path, ROW_NUMBER() OVER (ORDER BY dist, path) FROM ("
        "SELECT c.path AS path, "
        f"min(coalesce(vec_distance_cosine(e.vec, ?{vector_param}), 1.0)) AS dist "
        "FROM files f JOIN chunks c ON c.path = f.path "
        "JOIN embeddings e ON e.chunk_id = c.chunk_id "
        f"WHERE +e.model = {text_literal(embed_model)} AND {inside_windows_sql(windows_param)} "
        f"{scope} GROUP BY c.path ORDER BY dist, c.path LIMIT ?{limit_param})"
    )


def time_by_words_sql(
    scope: str,
    *,
    windows_param: int,
    query_param: int,
    limit_param: int,
    shared_matches: str | None,
) -> str:
    """``(path, rank)``: the windowed files ranked by their own text's bm25, any-term form.

    ``replace`` turns the all-terms form's joiner back (a term is a lowercased token or a quoted
    phrase, so it never holds " AND "). When ``?query_param`` is the any-term form already, the
    fts arm's scored matches (``shared_matches``, with their rowid) are read back instead.
    """
    if shared_matches is not None:
        return (
            "SELECT path, ROW_NUMBER() OVER (ORDER BY score, path) FROM ("
            f"SELECT m.path AS path, m.score AS score FROM {shared_matches} m "
            f"WHERE {inside_windows_sql(windows_param, 'm.rid')} "
            f"ORDER BY m.score, m.path LIMIT ?{limit_param})"
        )
    return (
        "SELECT path, ROW_NUMBER() OVER (ORDER BY score, path) FROM ("
        "SELECT f.path AS path, bm25(files_fts) AS score "
        "FROM files_fts JOIN files f ON f.rowid = files_fts.rowid "
        f"WHERE files_fts MATCH replace(?{query_param}, {text_literal(ALL_JOINER)}, "
        f"{text_literal(ANY_JOINER)}) AND {inside_windows_sql(windows_param)} {scope} "
        f"ORDER BY score, f.path LIMIT ?{limit_param})"
    )
