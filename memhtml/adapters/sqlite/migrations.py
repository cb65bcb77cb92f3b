"""Numbered ``.sql`` migrations: discovery, placeholder filling and the two ledgers
(docs/index-schema.md §2).

Each pending file runs with its ledger row as one script in one IMMEDIATE transaction, through
the same ``script`` primitive every caller uses, so a migration either lands whole with its
ledger row or not at all.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from importlib.resources import files
from importlib.resources.abc import Traversable
from typing import Final, Protocol

import attrs

from memhtml.adapters.sqlite.schema import MIGRATION_LEDGER
from memhtml.ports.errors import StorageFailure

INDEX_MIGRATIONS_DIR: Final = "migrations"
STATE_MIGRATIONS_DIR: Final = "state_migrations"
_PACKAGE: Final = "memhtml.adapters.sqlite"

# A migration's name is spliced into the ledger INSERT as a literal, so it is held to a charset
# that needs no quoting rather than escaped.
_NAME_PATTERN: Final = re.compile(r"[A-Za-z0-9_.-]+\.sql")
_PLACEHOLDER: Final = re.compile(r"\{\{([A-Z][A-Z0-9_]*)\}\}")


@attrs.frozen(kw_only=True)
class Migration:
    """One migration file: its filename (the ledger key) and its SQL text."""

    name: str
    sql: str


class ScriptRunner(Protocol):
    """What the runner needs from a connection: one-transaction scripts and a read."""

    def script(self, sql: str, *, operation: str | None = None) -> None:
        """Run ``sql`` as one transaction, all or nothing."""
        ...

    def all(
        self, sql: str, params: Sequence[str] = (), *, operation: str | None = None
    ) -> Sequence[Sequence[object]]:
        """Every row of one query."""
        ...


def shipped_migrations(directory: str) -> Traversable:
    """The package-data directory holding the shipped migrations (``INDEX_MIGRATIONS_DIR`` or
    ``STATE_MIGRATIONS_DIR``), found through importlib.resources so an installed wheel works."""
    return files(_PACKAGE) / directory


def load_migrations(directory: Traversable) -> tuple[Migration, ...]:
    """Every ``*.sql`` file of ``directory``, in filename order.

    Raises:
        ValueError: When a filename would need quoting in the ledger.
    """
    entries = sorted(
        (entry for entry in directory.iterdir() if entry.is_file() and entry.name.endswith(".sql")),
        key=lambda entry: entry.name,
    )
    for entry in entries:
        if not _NAME_PATTERN.fullmatch(entry.name):
            raise ValueError(f"migration filename not allowed: {entry.name!r}")
    return tuple(Migration(name=e.name, sql=e.read_text(encoding="utf-8")) for e in entries)


def render_placeholders(sql: str, values: Mapping[str, str]) -> str:
    """Fill every ``{{NAME}}`` in ``sql`` from ``values``.

    Values come from closed sets the caller validated (a tokenizer name), never from user text.

    Raises:
        ValueError: When the text names a placeholder ``values`` lacks; leaving it in would hand
            SQLite a literal ``{{NAME}}`` that might even parse.
    """
    missing = sorted({m for m in _PLACEHOLDER.findall(sql) if m not in values})
    if missing:
        raise ValueError(f"migration placeholders without a value: {missing}")
    return _PLACEHOLDER.sub(lambda match: values[match.group(1)], sql)


def ledger_ddl(schema: str) -> str:
    """The ledger of one schema, created if missing."""
    return (
        f"CREATE TABLE IF NOT EXISTS {schema}.{MIGRATION_LEDGER} "
        "(name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)"
    )


def ledger_names_sql(schema: str) -> str:
    """The query listing the names a schema's ledger holds."""
    return f"SELECT name FROM {schema}.{MIGRATION_LEDGER} ORDER BY name"


def migration_script(migration: Migration, schema: str, values: Mapping[str, str]) -> str:
    """The migration's rendered SQL followed by its ledger row, to run as one transaction."""
    body = render_placeholders(migration.sql, values)
    # The newline and the lone `;` close a final statement the file left unterminated, or a
    # trailing `--` comment, which would otherwise swallow the ledger INSERT.
    return (
        f"{body}\n;\nINSERT INTO {schema}.{MIGRATION_LEDGER}(name, applied_at) "
        f"VALUES ('{migration.name}', strftime('%Y-%m-%dT%H:%M:%SZ', 'now'));"
    )


def pending(migrations: Iterable[Migration], applied: Iterable[str]) -> tuple[Migration, ...]:
    """The migrations whose names the ledger lacks, in filename order."""
    done = frozenset(applied)
    return tuple(sorted((m for m in migrations if m.name not in done), key=lambda m: m.name))


def ledger_exists(db: ScriptRunner, schema: str) -> bool:
    """Whether ``schema`` already has its ledger table."""
    rows = db.all(
        f"SELECT 1 FROM {schema}.sqlite_master WHERE type = 'table' AND name = ?",
        (MIGRATION_LEDGER,),
        operation="find migration ledger",
    )
    return bool(rows)


def ledger_names(db: ScriptRunner, schema: str) -> frozenset[str]:
    """The names recorded in ``schema``'s ledger (which must exist)."""
    rows = db.all(ledger_names_sql(schema), operation="read migration ledger")
    return frozenset(str(row[0]) for row in rows)


def apply_migrations(
    db: ScriptRunner,
    migrations: Sequence[Migration],
    *,
    schema: str,
    values: Mapping[str, str],
) -> tuple[str, ...]:
    """Apply every pending migration of ``schema``, each in its own transaction with its row.

    Args:
        db: The connection to migrate.
        migrations: The candidate files, in any order.
        schema: ``main`` or ``state``: which ledger, and which schema the files target.
        values: Placeholder values for ``render_placeholders``.

    Returns:
        The names applied by this call, in order; empty when the ledger was current.

    Raises:
        StorageFailure: When a migration fails; earlier ones stay applied.
    """
    # Only a store that needs a change takes the write lock: an open of a current store must
    # succeed while another process is writing, or every read would wait on every write.
    if not ledger_exists(db, schema):
        db.script(ledger_ddl(schema), operation=f"create {schema} migration ledger")
    applied: list[str] = []
    for migration in pending(migrations, ledger_names(db, schema)):
        try:
            db.script(
                migration_script(migration, schema, values),
                operation=f"apply migration {migration.name}",
            )
        except StorageFailure:
            # Two processes opening a fresh store both see the file pending; the loser's
            # CREATE fails after the winner committed. Re-reading the ledger tells that race
            # apart from a broken migration, which must still fail.
            if migration.name in ledger_names(db, schema):
                continue
            raise
        applied.append(migration.name)
    return tuple(applied)
