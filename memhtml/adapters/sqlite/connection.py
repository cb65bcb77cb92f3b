"""One SQLite connection carrying index.db as ``main`` and state.db as ``state``
(docs/index-schema.md §1–§2).

Every statement goes through ``sqlean`` (a drop-in ``sqlite3`` with extension loading) with
sqlite-vec loaded. Transactions are explicit: autocommit mode plus ``BEGIN IMMEDIATE`` for every
multi-statement write, re-run whole on ``SQLITE_BUSY``. Every driver error leaves this module as
``StorageFailure`` naming the operation only, never SQL parameters or memory text.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import os
import sqlite3
from collections.abc import Callable, Sequence
from importlib.resources.abc import Traversable
from os import PathLike
from types import TracebackType
from typing import Final, NamedTuple, Self, TypeVar

import sqlean

from memhtml.adapters.sqlite.damage import (
    DAMAGE_MARK_SUFFIX,
    damage_as,
    is_damage,
    quick_check,
    refuse_empty,
)
from memhtml.adapters.sqlite.migrations import (
    INDEX_MIGRATIONS_DIR,
    STATE_MIGRATIONS_DIR,
    apply_migrations,
    ledger_names,
    load_migrations,
    shipped_migrations,
)
from memhtml.adapters.sqlite.retry import with_busy_retry
from memhtml.adapters.sqlite.schema import (
    DEFAULT_FTS_TOKENIZER,
    FTS_TOKENIZER_SETTING,
    MAIN_SCHEMA,
    SETTINGS_TABLE,
    STATE_SCHEMA,
    STATE_TABLES,
    migration_placeholders,
)
from memhtml.adapters.sqlite.vectors import COMPAT_DISTANCE_FUNCTION, vector_distance_cos
from memhtml.ports.errors import IndexCorrupt, StateCorrupt, StorageCorrupt, StorageFailure

SqlValue = str | int | float | bytes | None
Row = tuple[SqlValue, ...]
Params = Sequence[SqlValue]
Write = tuple[str, Params]


class WriteMany(NamedTuple):
    """One statement run once per row of parameters (``executemany``)."""

    sql: str
    rows: Sequence[Params]


Query = Callable[[str, Params], list[Row]]
"""Runs one query inside the open transaction of a ``write_planned`` call."""
Plan = Callable[[Query], Sequence[Write | WriteMany]]

BUSY_TIMEOUT_MS: Final = 5_000
IN_MEMORY: Final = ":memory:"

# The binding layer raises OverflowError (an int past 64 bits) and ValueError (a NUL in the SQL
# text) besides its own classes, and Warning for two statements in one execute().
_DRIVER_ERRORS: Final = (
    sqlean.Error,
    sqlean.Warning,
    sqlite3.Error,
    sqlite3.Warning,
    OverflowError,
    ValueError,
)

T = TypeVar("T")


@functools.cache
def _vec0_path() -> str:
    """Where the sqlite-vec package keeps its loadable extension, found without importing it.

    Importing ``sqlite_vec`` imports numpy when numpy is installed (for a helper we never call),
    which cost ~0.24 s of every CLI command's start-up; locating the package is enough.
    """
    spec = importlib.util.find_spec("sqlite_vec")
    if spec is None or spec.origin is None:
        raise ModuleNotFoundError("sqlite_vec")
    return os.path.join(os.path.dirname(spec.origin), "vec0")


class Database:
    """A connection with the index schema migrated and, optionally, the state plane attached.

    Build one with ``Database.open``. Reads run in autocommit; ``write_all`` and ``script`` each
    run in one ``BEGIN IMMEDIATE`` transaction. Rows come back as plain tuples in SELECT order.
    Not thread-safe: one connection per thread, as sqlite3 requires.
    """

    def __init__(self, connection: sqlean.Connection) -> None:
        """Wrap an open connection; ``open`` is the constructor callers use."""
        self._connection = connection
        self._migrations_applied = 0
        self._state_migrations_applied = 0
        self._newly_applied: tuple[str, ...] = ()
        self._has_state = False
        self._path: str | None = None

    @classmethod
    def open(
        cls,
        index_path: str | PathLike[str],
        *,
        state_path: str | PathLike[str] | None = None,
        fts_tokenizer: str = DEFAULT_FTS_TOKENIZER,
        busy_timeout_ms: int = BUSY_TIMEOUT_MS,
        index_migrations: Traversable | None = None,
        state_migrations: Traversable | None = None,
    ) -> Database:
        """Open index.db, apply its pending migrations, and attach state.db when given.

        ``":memory:"`` works for either file. Without ``state_path`` nothing is attached:
        ``has_state`` is False and every ``state.*`` statement fails, which is what a caller that
        only reads the rebuildable index wants (a silent in-memory state plane would accept
        access counts and then lose them).

        Args:
            index_path: index.db, or ``":memory:"``.
            state_path: state.db (or ``":memory:"``), attached as schema ``state``.
            fts_tokenizer: ``unicode61`` or ``porter``; used only when the index is created
                (docs/decisions.md §12). An existing index keeps the tokenizer it was built with;
                compare ``fts_tokenizer()`` with the configuration to detect a mismatch.
            busy_timeout_ms: SQLite's own wait for a lock before ``SQLITE_BUSY``.
            index_migrations: Another migrations directory (tests); default the shipped one.
            state_migrations: Another state migrations directory; default the shipped one.

        Raises:
            InvalidInput: When the tokenizer name is unknown.
            IndexCorrupt: index.db is damaged, not a database, empty, or cannot be opened.
            StateCorrupt: The same of state.db.
            StorageFailure: When the files cannot be opened, migrated or attached otherwise.
        """
        placeholders = migration_placeholders(fts_tokenizer)
        index_dir = index_migrations or shipped_migrations(INDEX_MIGRATIONS_DIR)
        state_dir = state_migrations or shipped_migrations(STATE_MIGRATIONS_DIR)
        # A file cut to nothing would open as a new, empty database: for state.db that is
        # every count lost without a word, so an empty existing file is a damaged one.
        refuse_empty(index_path, IndexCorrupt("open index database (empty file)"))
        if state_path is not None:
            refuse_empty(state_path, StateCorrupt("attach state database (empty file)"))
        with damage_as(IndexCorrupt):
            try:
                connection = sqlean.connect(
                    str(index_path), timeout=busy_timeout_ms / 1000, isolation_level=None
                )
            except _DRIVER_ERRORS as error:
                raise StorageFailure("open index database") from error
        database = cls(connection)
        database._path = None if str(index_path) == IN_MEMORY else os.fspath(index_path)
        try:
            with damage_as(IndexCorrupt):
                database._prepare(busy_timeout_ms)
                applied = apply_migrations(
                    database, load_migrations(index_dir), schema=MAIN_SCHEMA, values=placeholders
                )
                database._migrations_applied = len(ledger_names(database, MAIN_SCHEMA))
            if state_path is not None:
                applied += database._attach_migrated_state(state_path, state_dir, placeholders)
            database._newly_applied = applied
        except BaseException:
            connection.close()
            raise
        return database

    def copy_in_memory(self, *, with_state: bool = False) -> Database:
        """A new in-memory database holding a copy of this one's index (``main``), and a fresh
        in-memory state plane when ``with_state``: what ``open(":memory:")`` returns for this
        index, without running its migrations again.

        A test seam: property tests build hundreds of small indexes per run, and migrating each
        cost ~25 ms on an idle core where copying a migrated one costs ~1 ms. The copy is made
        with SQLite's online backup, page by page, so it holds what the template holds;
        ``newly_applied`` names only the state migrations this call ran.

        Raises:
            StorageFailure: When the copy cannot be made or the state plane attached.
        """
        try:
            connection = sqlean.connect(IN_MEMORY, isolation_level=None)
        except _DRIVER_ERRORS as error:
            raise StorageFailure("open index database") from error
        copy = type(self)(connection)
        try:
            copy._prepare(BUSY_TIMEOUT_MS)
            copy._guarded("copy index database", lambda: self._connection.backup(connection))
            copy._migrations_applied = self._migrations_applied
            if with_state:
                placeholders = migration_placeholders(copy.fts_tokenizer())
                state_dir = shipped_migrations(STATE_MIGRATIONS_DIR)
                copy._newly_applied = copy._attach_migrated_state(
                    IN_MEMORY, state_dir, placeholders
                )
        except BaseException:
            connection.close()
            raise
        return copy

    def _attach_migrated_state(
        self, state_path: str | PathLike[str], state_dir: Traversable, values: dict[str, str]
    ) -> tuple[str, ...]:
        """Attach state.db as ``state`` and apply its pending migrations; returns their names."""
        with damage_as(StateCorrupt):
            self._attach_state(state_path)
            applied = apply_migrations(
                self, load_migrations(state_dir), schema=STATE_SCHEMA, values=values
            )
            self._state_migrations_applied = len(ledger_names(self, STATE_SCHEMA))
            self._has_state = self._state_tables_present()
        return applied

    def _prepare(self, busy_timeout_ms: int) -> None:
        def prepare() -> None:
            connection = self._connection
            # Loaded before any migration runs, so a later migration may create a vec0 table.
            connection.enable_load_extension(True)
            connection.load_extension(_vec0_path())
            connection.enable_load_extension(False)
            connection.create_function(
                COMPAT_DISTANCE_FUNCTION, 2, vector_distance_cos, deterministic=True
            )
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute("PRAGMA synchronous=NORMAL")
            connection.execute("PRAGMA foreign_keys=ON")
            connection.execute(f"PRAGMA busy_timeout={int(busy_timeout_ms)}")

        self._guarded("configure connection", prepare)

    def _attach_state(self, state_path: str | PathLike[str]) -> None:
        def attach() -> None:
            self._connection.execute(f"ATTACH DATABASE ? AS {STATE_SCHEMA}", (str(state_path),))
            # Journal mode and synchronous are per schema: ATTACH does not inherit them.
            self._connection.execute(f"PRAGMA {STATE_SCHEMA}.journal_mode=WAL")
            self._connection.execute(f"PRAGMA {STATE_SCHEMA}.synchronous=NORMAL")

        self._guarded("attach state database", attach)

    def _state_tables_present(self) -> bool:
        marks = ", ".join("?" for _ in STATE_TABLES)
        row = self.get(
            f"SELECT count(*) FROM {STATE_SCHEMA}.sqlite_master "
            f"WHERE type = 'table' AND name IN ({marks})",
            STATE_TABLES,
            operation="check state tables",
        )
        return row is not None and row[0] == len(STATE_TABLES)

    @property
    def path(self) -> str | None:
        """index.db's path; ``None`` for an in-memory index."""
        return self._path

    def integrity(self, schema: str, *, budget_s: float) -> str:
        """SQLite's ``quick_check`` of ``schema`` (``main`` or ``state``), stopped after
        ``budget_s`` seconds; see :func:`memhtml.adapters.sqlite.damage.quick_check`."""
        return quick_check(self._connection, schema, budget_s=budget_s, driver=_DRIVER_ERRORS)

    @property
    def migrations_applied(self) -> int:
        """Migrations recorded in index.db's ledger."""
        return self._migrations_applied

    @property
    def state_migrations_applied(self) -> int:
        """Migrations recorded in state.db's own ledger; 0 when no state is attached."""
        return self._state_migrations_applied

    @property
    def newly_applied(self) -> tuple[str, ...]:
        """Migration files this open applied (index first, then state); empty when current."""
        return self._newly_applied

    @property
    def has_state(self) -> bool:
        """Whether ``state.access`` and the corroboration tables are reachable."""
        return self._has_state

    def fts_tokenizer(self) -> str:
        """The tokenizer ``files_fts`` was built with, as recorded at build time.

        Raises:
            StorageFailure: When the setting cannot be read.
        """
        row = self.get(
            f"SELECT value FROM {SETTINGS_TABLE} WHERE name = ?",
            (FTS_TOKENIZER_SETTING,),
            operation="read fts tokenizer",
        )
        if row is None or not isinstance(row[0], str):
            raise StorageFailure("read fts tokenizer")
        return row[0]

    def run(self, sql: str, params: Params = (), *, operation: str | None = None) -> None:
        """Execute one statement in autocommit (atomic on its own).

        Raises:
            StorageFailure: On any driver error, after busy retries.
        """
        self._guarded(operation or "run", lambda: self._connection.execute(sql, params))

    def get(self, sql: str, params: Params = (), *, operation: str | None = None) -> Row | None:
        """The first row of one query, or None when it returns no row.

        Raises:
            StorageFailure: On any driver error, after busy retries.
        """
        row: Row | None = self._guarded(
            operation or "get", lambda: self._connection.execute(sql, params).fetchone()
        )
        return row

    def all(self, sql: str, params: Params = (), *, operation: str | None = None) -> list[Row]:
        """Every row of one query, in the order SQLite returns them.

        Raises:
            StorageFailure: On any driver error, after busy retries.
        """
        rows: list[Row] = self._guarded(
            operation or "all", lambda: self._connection.execute(sql, params).fetchall()
        )
        return rows

    def write_all(self, writes: Sequence[Write], *, operation: str | None = None) -> None:
        """Execute every ``(sql, params)`` in one transaction: all commit, or none do.

        A bulk job splits its writes into ``WRITE_BATCH_SIZE`` pieces itself; this call never
        splits, because splitting would break its all-or-nothing promise.

        Raises:
            StorageFailure: On any driver error; nothing of ``writes`` remains.
        """
        batch = tuple(writes)  # a generator would be spent by the time a busy retry re-runs it
        if not batch:
            return

        def transaction() -> None:
            self._connection.execute("BEGIN IMMEDIATE")
            try:
                for sql, params in batch:
                    self._connection.execute(sql, params)
                self._connection.execute("COMMIT")
            except BaseException:
                self._rollback()
                raise

        self._guarded(operation or "write_all", transaction)

    def write_planned(self, plan: Plan, *, operation: str | None = None) -> None:
        """Run ``plan``'s writes in one transaction, the plan itself made inside it.

        ``plan`` may query through the function it is given and decide its writes from what
        it reads: nothing can change in between, because the transaction is IMMEDIATE. A busy
        retry runs the plan again. All writes commit, or none do.

        Raises:
            StorageFailure: On any driver error; nothing of the plan's writes remains.
        """
        connection = self._connection

        def query(sql: str, params: Params) -> list[Row]:
            rows: list[Row] = connection.execute(sql, params).fetchall()
            return rows

        def transaction() -> None:
            connection.execute("BEGIN IMMEDIATE")
            try:
                for item in plan(query):
                    if isinstance(item, WriteMany):
                        connection.executemany(item.sql, item.rows)
                    else:
                        connection.execute(*item)
                connection.execute("COMMIT")
            except BaseException:
                self._rollback()
                raise

        self._guarded(operation or "write_planned", transaction)

    def script(self, sql: str, *, operation: str | None = None) -> None:
        """Run a whole parameterless script in one IMMEDIATE transaction.

        ``sql`` must not hold its own BEGIN/COMMIT. The driver's ``executescript`` commits any
        open transaction first, so the BEGIN and COMMIT travel inside the one script.

        Raises:
            StorageFailure: On any driver error; nothing of the script remains.
        """
        wrapped = f"BEGIN IMMEDIATE;\n{sql}\n;\nCOMMIT;"

        def transaction() -> None:
            try:
                self._connection.executescript(wrapped)
            except BaseException:
                self._rollback()
                raise

        self._guarded(operation or "script", transaction)

    def close(self) -> None:
        """Close the connection; later calls raise ``StorageFailure``. Closing twice is fine."""
        self._guarded("close", self._connection.close)

    def __enter__(self) -> Self:
        """Use the database as a context manager that closes it."""
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        """Close on the way out, error or not."""
        self.close()

    def _rollback(self) -> None:
        # A failed statement may already have ended the transaction (SQLite rolls back on some
        # errors); a ROLLBACK then would raise and mask the error that matters.
        if self._connection.in_transaction:
            with contextlib.suppress(*_DRIVER_ERRORS):
                self._connection.execute("ROLLBACK")

    def _guarded(self, operation: str, action: Callable[[], T]) -> T:
        try:
            return with_busy_retry(action)
        except _DRIVER_ERRORS as error:
            if is_damage(error):
                self._mark_damaged()
                raise StorageCorrupt(operation) from error
            raise StorageFailure(operation) from error

    def _mark_damaged(self) -> None:
        if self._path is None:
            return
        with contextlib.suppress(OSError), open(self._path + DAMAGE_MARK_SUFFIX, "a"):
            pass
