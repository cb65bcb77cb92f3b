"""The migration runner: discovery order, placeholders, ledger rows, one transaction per file."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from memhtml.adapters.sqlite.connection import Database
from memhtml.adapters.sqlite.migrations import (
    INDEX_MIGRATIONS_DIR,
    STATE_MIGRATIONS_DIR,
    Migration,
    apply_migrations,
    load_migrations,
    pending,
    render_placeholders,
    shipped_migrations,
)
from memhtml.ports.errors import StorageFailure

names = st.from_regex(r"[0-9]{4}_[a-z]{1,8}\.sql", fullmatch=True)
placeholder_names = st.from_regex(r"[A-Z][A-Z0-9_]{0,10}", fullmatch=True)
plain_values = st.text(alphabet="abcdefghij 0123456789", max_size=12)


def write_dir(root: Path, files: dict[str, str]) -> Path:
    """A migrations directory holding ``files``."""
    root.mkdir(parents=True, exist_ok=True)
    for name, sql in files.items():
        (root / name).write_text(sql, encoding="utf-8")
    return root


def test_shipped_directories_hold_the_init_files() -> None:
    """The package data ships the index and state migrations, found via importlib.resources."""
    index = [m.name for m in load_migrations(shipped_migrations(INDEX_MIGRATIONS_DIR))]
    state = [m.name for m in load_migrations(shipped_migrations(STATE_MIGRATIONS_DIR))]
    assert (
        [
            "0001_init.sql",
            "0002_chunk_owner.sql",
            "0003_trace_files.sql",
            "0004_lexical_context.sql",
            "0005_frame_keys.sql",
            "0006_arms.sql",
            "0007_warm_search.sql",
            "0008_known_at.sql",
            "0009_session_documents.sql",
            "0010_salience_order.sql",
            "0011_live_chunk_owner.sql",
            "0012_event_day.sql",
            "0013_context_rowid.sql",
        ],
        ["S0001_init.sql", "S0002_access_static.sql"],
    ) == (index, state)


def test_files_load_in_filename_order_and_skip_other_files(tmp_path: Path) -> None:
    """Only *.sql files are migrations, sorted by name whatever the creation order."""
    root = write_dir(tmp_path, {"0002_b.sql": "", "0010_c.sql": "", "0001_a.sql": "", "x.txt": ""})
    assert ["0001_a.sql", "0002_b.sql", "0010_c.sql"] == [m.name for m in load_migrations(root)]


def test_a_name_needing_quotes_is_refused(tmp_path: Path) -> None:
    """A filename that would need escaping in the ledger INSERT is refused."""
    root = write_dir(tmp_path, {"0001_it's.sql": ""})
    with pytest.raises(ValueError, match="not allowed"):
        load_migrations(root)


@given(migration_names=st.lists(names, unique=True), applied=st.lists(names))
def test_pending_is_the_unapplied_files_in_order(
    migration_names: list[str], applied: list[str]
) -> None:
    """pending keeps exactly the names absent from the ledger, sorted by filename."""
    migrations = [Migration(name=n, sql="") for n in migration_names]
    expected = sorted(n for n in migration_names if n not in applied)
    assert expected == [m.name for m in pending(migrations, applied)]


@given(values=st.dictionaries(placeholder_names, plain_values, max_size=4), prefix=plain_values)
@example(values={"A": "{{B}}", "B": "x"}, prefix="")
def test_render_fills_every_placeholder_once(values: dict[str, str], prefix: str) -> None:
    """Each {{NAME}} is replaced by its value, and a value is never rescanned."""
    sql = prefix + "".join(f"<{{{{{name}}}}}>" for name in values)
    expected = prefix + "".join(f"<{value}>" for value in values.values())
    assert expected == render_placeholders(sql, values)


@given(sql=plain_values)
def test_render_leaves_text_without_placeholders_alone(sql: str) -> None:
    """Text without a placeholder comes back unchanged."""
    assert sql == render_placeholders(sql, {"X": "y"})


def test_render_refuses_a_placeholder_without_value() -> None:
    """A placeholder the runner has no value for is an error, not literal text."""
    with pytest.raises(ValueError, match="FTS_TOKENIZE"):
        render_placeholders("tokenize='{{FTS_TOKENIZE}}'", {})


def test_custom_migrations_apply_in_order_with_ledger_rows(tmp_path: Path) -> None:
    """Two files apply in order in one open, one ledger row each; reopening applies nothing."""
    root = write_dir(
        tmp_path / "m",
        {
            "0002_fill.sql": "INSERT INTO t VALUES (1)",
            "0001_make.sql": "CREATE TABLE t (x INTEGER NOT NULL)",
        },
    )
    with Database.open(tmp_path / "i.db", index_migrations=root) as db:
        first = (db.newly_applied, db.migrations_applied, db.all("SELECT x FROM t"))
    with Database.open(tmp_path / "i.db", index_migrations=root) as db:
        second = (db.newly_applied, db.migrations_applied)
    assert ((("0001_make.sql", "0002_fill.sql"), 2, [(1,)]), ((), 2)) == (first, second)


def test_a_failing_migration_leaves_no_trace_and_stops(tmp_path: Path) -> None:
    """A file that fails midway rolls back whole; earlier files stay; later ones do not run."""
    root = write_dir(
        tmp_path / "m",
        {
            "0001_ok.sql": "CREATE TABLE a (x)",
            "0002_bad.sql": "CREATE TABLE b (x); INSERT INTO nowhere VALUES (1);",
            "0003_later.sql": "CREATE TABLE c (x)",
        },
    )
    with pytest.raises(StorageFailure) as raised:
        Database.open(tmp_path / "i.db", index_migrations=root)
    (root / "0002_bad.sql").unlink()
    (root / "0003_later.sql").unlink()
    with Database.open(tmp_path / "i.db", index_migrations=root) as db:
        tables = {str(r[0]) for r in db.all("SELECT name FROM sqlite_master WHERE type='table'")}
        ledger = db.all("SELECT name FROM schema_migrations")
    assert "apply migration 0002_bad.sql" == raised.value.operation
    assert ({"a", "schema_migrations"}, [("0001_ok.sql",)]) == (tables, ledger)


def test_a_migration_ending_in_a_comment_still_records_its_row(tmp_path: Path) -> None:
    """An unterminated last statement or trailing comment cannot swallow the ledger INSERT."""
    root = write_dir(tmp_path / "m", {"0001_a.sql": "CREATE TABLE a (x) -- no semicolon"})
    with Database.open(":memory:", index_migrations=root) as db:
        assert [("0001_a.sql",)] == db.all("SELECT name FROM schema_migrations")


class _StaleLedger:
    """A connection whose first ledger read is stale: what a process that lost the race to a
    concurrent opener sees."""

    def __init__(self, db: Database) -> None:
        self._db = db
        self._reads = 0

    def script(self, sql: str, *, operation: str | None = None) -> None:
        self._db.script(sql, operation=operation)

    def all(
        self, sql: str, params: Sequence[str] = (), *, operation: str | None = None
    ) -> list[tuple[object, ...]]:
        if "schema_migrations ORDER BY" in sql:
            self._reads += 1
            if self._reads == 1:
                return []
        return list(self._db.all(sql, params, operation=operation))


def test_losing_the_race_to_another_opener_is_not_an_error(tmp_path: Path) -> None:
    """When a file turns out applied by someone else meanwhile, the runner skips it quietly."""
    with Database.open(tmp_path / "index.db") as db:
        migrations = load_migrations(shipped_migrations(INDEX_MIGRATIONS_DIR))
        applied = apply_migrations(
            _StaleLedger(db),
            migrations,
            schema="main",
            values={"FTS_TOKENIZE": "unicode61", "FTS_TOKENIZER": "unicode61"},
        )
        assert ((), len(migrations)) == (applied, db.migrations_applied)


def test_has_state_needs_the_state_tables(tmp_path: Path) -> None:
    """A state file attached without the state tables does not count as a state plane."""
    root = write_dir(tmp_path / "s", {"S0001_other.sql": "CREATE TABLE state.other (x)"})
    with Database.open(":memory:", state_path=":memory:", state_migrations=root) as db:
        assert (False, 1) == (db.has_state, db.state_migrations_applied)


def test_an_index_from_before_frame_keys_records_no_rule_after_migrating(tmp_path: Path) -> None:
    """Opened by this release, an index built under 0001–0004 records no frame-key rule, which
    is what makes the next update key its rows (0005); a fresh index records the same."""
    from memhtml.adapters.sqlite.index_store import SqliteIndexStore

    shipped = load_migrations(shipped_migrations(INDEX_MIGRATIONS_DIR))
    old = write_dir(tmp_path / "old", {m.name: m.sql for m in shipped if m.name < "0005"})
    with Database.open(tmp_path / "index.db", index_migrations=old) as db:
        before = db.migrations_applied
    with Database.open(tmp_path / "index.db") as db:
        after = (db.newly_applied, SqliteIndexStore(db).frame_key_rule())
    with Database.open(tmp_path / "fresh.db") as db:
        fresh = SqliteIndexStore(db).frame_key_rule()
    assert (
        4,
        (
            "0005_frame_keys.sql",
            "0006_arms.sql",
            "0007_warm_search.sql",
            "0008_known_at.sql",
            "0009_session_documents.sql",
            "0010_salience_order.sql",
            "0011_live_chunk_owner.sql",
            "0012_event_day.sql",
            "0013_context_rowid.sql",
        ),
        "",
        "",
    ) == (
        before,
        *after,
        fresh,
    )
