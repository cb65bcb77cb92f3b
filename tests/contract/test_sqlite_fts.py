"""files_fts against its triggers and its build-time tokenizer (docs/index-schema.md §3.5,
docs/decisions.md §12)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from memhtml.adapters.sqlite.connection import Database
from memhtml.adapters.sqlite.schema import (
    DEFAULT_FTS_TOKENIZER,
    FILE_COLUMNS,
    FTS_TOKENIZERS,
    retokenize_fts_script,
)
from memhtml.domain.errors import InvalidInput
from memhtml.ports.errors import StorageFailure

WORDS = ("apple", "birch", "cedar", "delta", "ember")
PATHS = ("areas/a.html", "areas/b.html", "projects/p/c.html")
UPSERT = (
    "INSERT INTO files (path, blob_sha, content_hash, memory_type, title, body_text, fts_text, "
    "para, created_at, updated_at, indexed_at) VALUES (?, 'b', ?, 'semantic', 't', 'x', ?, "
    "?, 'n', 'n', 'n') ON CONFLICT(path) DO UPDATE SET fts_text = excluded.fts_text"
)

# One step: ("put", path, words) upserts fts_text; ("title", path) touches another column;
# ("move", path, path) renames; ("drop", path) deletes.
step = st.one_of(
    st.tuples(
        st.just("put"),
        st.sampled_from(PATHS),
        st.lists(st.sampled_from(WORDS), max_size=3),
    ),
    st.tuples(st.just("title"), st.sampled_from(PATHS)),
    st.tuples(st.just("move"), st.sampled_from(PATHS), st.sampled_from(PATHS)),
    st.tuples(st.just("drop"), st.sampled_from(PATHS)),
)


def _apply(db: Database, model: dict[str, str], action: tuple[object, ...], serial: int) -> None:
    kind, path = str(action[0]), str(action[1])
    if kind == "put":
        words = action[2]
        assert isinstance(words, list)
        text = " ".join(words)
        # A fresh hash per put: the dedup index must not be what this test exercises.
        db.run(UPSERT, (path, f"sha256:{serial}", text, path.split("/")[0]))
        model[path] = text
    elif kind == "title" and path in model:
        db.run("UPDATE files SET title = title || '!' WHERE path = ?", (path,))
    elif kind == "move" and path in model and str(action[2]) not in model:
        target = str(action[2])
        db.run("UPDATE files SET path = ? WHERE path = ?", (target, path))
        model[target] = model.pop(path)
    elif kind == "drop":
        db.run("DELETE FROM files WHERE path = ?", (path,))
        model.pop(path, None)


def _matches(db: Database, word: str) -> set[str]:
    rows = db.all(
        "SELECT f.path FROM files_fts JOIN files f ON f.rowid = files_fts.rowid "
        "WHERE files_fts MATCH ?",
        (word,),
    )
    return {str(r[0]) for r in rows}


@settings(max_examples=60, deadline=None)
@given(steps=st.lists(step, max_size=12))
@example(steps=[("put", "areas/a.html", ["apple"]), ("put", "areas/a.html", ["birch"])])
@example(steps=[("put", "areas/a.html", ["apple"]), ("drop", "areas/a.html")])
@example(
    steps=[
        ("put", "areas/a.html", []),
        ("move", "areas/a.html", "areas/b.html"),
        ("put", "areas/a.html", []),
    ]
)
def test_fts_matches_exactly_the_current_text(steps: list[tuple[object, ...]]) -> None:
    """After any sequence of upserts, renames, other-column updates and deletes, each word MATCHes
    exactly the rows whose current fts_text holds it, and FTS5's integrity check passes."""
    model: dict[str, str] = {}
    with Database.open(":memory:") as db:
        for serial, action in enumerate(steps):
            _apply(db, model, action, serial)
        expected = {w: {p for p, text in model.items() if w in text.split()} for w in WORDS}
        actual = {w: _matches(db, w) for w in WORDS}
        db.run("INSERT INTO files_fts(files_fts, rank) VALUES ('integrity-check', 1)")
    assert expected == actual


def _stems(db: Database) -> list[str]:
    db.run(UPSERT, ("areas/a.html", "sha256:a", "running quickly", "areas"))
    return sorted(_matches(db, "run"))


def test_default_tokenizer_is_porter_recorded_and_stems() -> None:
    """By default files_fts uses porter (issue 13), records it, and 'run' matches 'running'."""
    with Database.open(":memory:") as db:
        assert ("porter", DEFAULT_FTS_TOKENIZER, ["areas/a.html"]) == (
            db.fts_tokenizer(),
            DEFAULT_FTS_TOKENIZER,
            _stems(db),
        )


def test_unicode61_tokenizer_is_recorded_and_does_not_stem() -> None:
    """MEMHTML_FTS_TOKENIZER=unicode61 builds a plain index: 'run' does not match 'running'."""
    with Database.open(":memory:", fts_tokenizer="unicode61") as db:
        assert ("unicode61", []) == (db.fts_tokenizer(), _stems(db))


def test_porter_tokenizer_is_recorded_and_stems() -> None:
    """MEMHTML_FTS_TOKENIZER=porter builds a stemming index and records 'porter'."""
    with Database.open(":memory:", fts_tokenizer="porter") as db:
        assert ("porter", ["areas/a.html"]) == (db.fts_tokenizer(), _stems(db))


def test_existing_index_keeps_its_tokenizer(tmp_path: Path) -> None:
    """Reopening with another tokenizer changes nothing, so the mismatch is detectable."""
    Database.open(tmp_path / "index.db", fts_tokenizer="porter").close()
    with Database.open(tmp_path / "index.db", fts_tokenizer="unicode61") as db:
        assert ("porter", ["areas/a.html"]) == (db.fts_tokenizer(), _stems(db))


@pytest.mark.parametrize("tokenizer", sorted(FTS_TOKENIZERS))
def test_retokenize_switches_and_keeps_rows_searchable(tokenizer: str) -> None:
    """The retokenize script rebuilds files_fts from files and records the new tokenizer."""
    other = "porter" if tokenizer == "unicode61" else "unicode61"
    with Database.open(":memory:", fts_tokenizer=other) as db:
        db.run(UPSERT, ("areas/a.html", "sha256:a", "running quickly", "areas"))
        db.script(retokenize_fts_script(tokenizer))
        db.run(UPSERT, ("areas/b.html", "sha256:b", "runs daily", "areas"))
        db.run("INSERT INTO files_fts(files_fts, rank) VALUES ('integrity-check', 1)")
        stemmed = tokenizer == "porter"
        expected_run = ["areas/a.html", "areas/b.html"] if stemmed else []
        expected_running = ["areas/a.html", "areas/b.html"] if stemmed else ["areas/a.html"]
        assert (tokenizer, expected_running, expected_run) == (
            db.fts_tokenizer(),
            sorted(_matches(db, "running")),
            sorted(_matches(db, "run")),
        )


def test_retokenize_refuses_unknown_names() -> None:
    """Only the closed tokenizer set can reach the DDL."""
    with pytest.raises(InvalidInput):
        retokenize_fts_script("porter'); DROP TABLE files; --")


def test_failed_retokenize_leaves_the_old_index() -> None:
    """A retokenize that fails midway rolls back to the previous table and setting."""
    with Database.open(":memory:", fts_tokenizer="unicode61") as db:
        db.run(UPSERT, ("areas/a.html", "sha256:a", "running", "areas"))
        with pytest.raises(StorageFailure):
            db.script(retokenize_fts_script("porter") + "SELECT * FROM nowhere;")
        assert ("unicode61", {"areas/a.html"}) == (db.fts_tokenizer(), _matches(db, "running"))


def test_upsert_column_list_is_complete() -> None:
    """FILE_COLUMNS holds each column once (the upsert binds one value per entry)."""
    assert len(set(FILE_COLUMNS)) == len(FILE_COLUMNS)
