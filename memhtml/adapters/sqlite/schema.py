"""Names of the index and state schemas (docs/index-schema.md §3–§5), and the one place the FTS
tokenizer is chosen.

The migration files are the DDL; this module names the identifiers Python code binds to, so a
renamed table fails a contract test instead of drifting silently.
"""

from __future__ import annotations

from typing import Final

from memhtml.domain.errors import InvalidInput

# The `files` columns in bind order. One list drives the upsert's column list and its
# `DO UPDATE SET` clause; a value bound at the wrong position would shift every later value
# into the wrong column while every CHECK still passed, so the contract suite pins this order
# against `PRAGMA table_info(files)`.
FILE_COLUMNS: Final[tuple[str, ...]] = (
    "path",
    "blob_sha",
    "content_hash",
    "memory_type",
    "title",
    "body_text",
    "gist",
    "fts_text",
    "disclosure_text",
    "para",
    "workspace",
    "confidence",
    "importance",
    "archived",
    "origin_path",
    "word_count",
    "created_at",
    "updated_at",
    "event_at",
    "archived_at",
    "valid_from",
    "valid_until",
    "reprieves",
    "needs_revision",
    "author",
    "session_id",
    "prompt_id",
    "turn_uuid",
    "indexed_at",
    "task_status",
    "due_at",
    "frame_key",
    "pinned",
)

# Tables a rebuild empties, children before parents, so each DELETE is valid with foreign keys
# enforced rather than leaning on the cascade.
MEMORY_TABLES: Final[tuple[str, ...]] = (
    "session_documents",
    "entity_terms",
    "file_context",
    "file_citations",
    "file_facets",
    "file_entities",
    "file_tags",
    "embeddings",
    "chunks",
    "edges",
    "files",
    # Last: deleting rows of files records their paths and sessions here (0004, 0009).
    "context_dirty",
    "session_dirty",
)
# The trace plane: never emptied by a rebuild, never named in retrieval SQL.
# trace_files (migration 0003) holds each transcript file's extract.
TRACE_TABLES: Final[tuple[str, ...]] = (
    "trace_prompts",
    "traces",
    "trace_watermarks",
    "trace_files",
)
# The state plane's tables, qualified with STATE_SCHEMA at every call site. The original listed
# only the first two; entity_corroboration ships in the same S0001 file here, so it is named too.
STATE_TABLES: Final[tuple[str, ...]] = ("access", "edge_corroboration", "entity_corroboration")

STATE_SCHEMA: Final = "state"
MAIN_SCHEMA: Final = "main"
MIGRATION_LEDGER: Final = "schema_migrations"

FTS_INDEX_NAME: Final = "files_fts"
CONTEXT_INDEX_NAME: Final = "context_fts"
"""The contextual documents' full-text index (migration 0004), built with the same tokenizer."""
SESSION_INDEX_NAME: Final = "session_fts"
"""The session documents' full-text index (migration 0009), built with the same tokenizer."""
FTS_COLUMN: Final = "fts_text"
INDEX_STATE_TABLE: Final = "index_state"
INDEX_STATE_ID: Final = 1
EMBEDDINGS_TABLE: Final = "embeddings"

# The triggers that keep files_fts in step with files, exactly as migration 0001 creates them
# (a test compares them with sqlite_master). A rebuild drops them with its truncate and
# recreates them, with one FTS 'rebuild', before the watermark can move again: indexing the
# whole table at once costs about a third of what one trigger run per row does.
FTS_TRIGGERS: Final[dict[str, str]] = {
    "files_fts_insert": (
        "CREATE TRIGGER files_fts_insert AFTER INSERT ON files BEGIN\n"
        "    INSERT INTO files_fts(rowid, fts_text) VALUES (new.rowid, new.fts_text);\n"
        "END"
    ),
    "files_fts_delete": (
        "CREATE TRIGGER files_fts_delete AFTER DELETE ON files BEGIN\n"
        "    INSERT INTO files_fts(files_fts, rowid, fts_text) "
        "VALUES ('delete', old.rowid, old.fts_text);\n"
        "END"
    ),
    "files_fts_update": (
        "CREATE TRIGGER files_fts_update AFTER UPDATE OF fts_text ON files BEGIN\n"
        "    INSERT INTO files_fts(files_fts, rowid, fts_text) "
        "VALUES ('delete', old.rowid, old.fts_text);\n"
        "    INSERT INTO files_fts(rowid, fts_text) VALUES (new.rowid, new.fts_text);\n"
        "END"
    ),
}

# The triggers that keep context_fts in step with file_context, exactly as migration 0004
# creates them. A rebuild drops them with its truncate too; the refresh that writes the
# context documents afterwards recreates them and indexes the table once (context_sql.py).
CONTEXT_FTS_TRIGGERS: Final[dict[str, str]] = {
    "context_fts_insert": (
        "CREATE TRIGGER context_fts_insert AFTER INSERT ON file_context BEGIN\n"
        "    INSERT INTO context_fts(rowid, text) VALUES (new.rowid, new.text);\n"
        "END"
    ),
    "context_fts_delete": (
        "CREATE TRIGGER context_fts_delete AFTER DELETE ON file_context BEGIN\n"
        "    INSERT INTO context_fts(context_fts, rowid, text) "
        "VALUES ('delete', old.rowid, old.text);\n"
        "END"
    ),
    "context_fts_update": (
        "CREATE TRIGGER context_fts_update AFTER UPDATE OF text ON file_context BEGIN\n"
        "    INSERT INTO context_fts(context_fts, rowid, text) "
        "VALUES ('delete', old.rowid, old.text);\n"
        "    INSERT INTO context_fts(rowid, text) VALUES (new.rowid, new.text);\n"
        "END"
    ),
}

# Statements per write transaction in a bulk job: caps what one failure discards and how long
# one write holds the write lock against other writers (WAL readers are never blocked). Each
# commit writes the B-tree pages it dirtied to the WAL and may trigger a checkpoint, so
# commits are not free: a 10,000-file rebuild spent 3.2 s of ~13 s in 407 COMMITs at 500
# statements per transaction, and 5,000 (about the 200 files the rebuild hands over per
# call) took ~1.5 s off it (BENCHMARKS.md, fourteenth session). One such transaction holds
# the lock for about 0.1 s.
WRITE_BATCH_SIZE: Final = 5000

# Build-time settings of index.db that later code must compare against configuration.
SETTINGS_TABLE: Final = "index_settings"
FTS_TOKENIZER_SETTING: Final = "fts_tokenizer"
# The frame-key derivation the stored keys were made with (migration 0005).
FRAME_KEY_RULE_SETTING: Final = "frame_key_rule"

# docs/decisions.md §12: the tokenizer is chosen when the index is built (MEMHTML_FTS_TOKENIZER) and
# recorded in SETTINGS_TABLE. Name → FTS5 `tokenize` argument; porter wraps unicode61 so
# stemming never changes how words are split.
FTS_TOKENIZERS: Final[dict[str, str]] = {
    "unicode61": "unicode61",
    "porter": "porter unicode61",
}
DEFAULT_FTS_TOKENIZER: Final = "porter"

# Placeholders the migration runner fills in 0001_init.sql (see migrations.render_placeholders).
FTS_TOKENIZER_PLACEHOLDER: Final = "FTS_TOKENIZER"
FTS_TOKENIZE_PLACEHOLDER: Final = "FTS_TOKENIZE"


def fts_tokenize_argument(tokenizer: str) -> str:
    """The FTS5 ``tokenize`` argument for a tokenizer name.

    Args:
        tokenizer: One of the keys of ``FTS_TOKENIZERS``.

    Returns:
        The text placed inside ``tokenize='…'``.

    Raises:
        InvalidInput: When the name is not a supported tokenizer. The value is spliced into DDL,
            so only this closed set may ever reach it.
    """
    try:
        return FTS_TOKENIZERS[tokenizer]
    except KeyError:
        raise InvalidInput(
            f"unknown FTS tokenizer {tokenizer!r}; expected one of {sorted(FTS_TOKENIZERS)}"
        ) from None


def migration_placeholders(tokenizer: str) -> dict[str, str]:
    """The values the index migrations' ``{{NAME}}`` placeholders take for a tokenizer.

    Raises:
        InvalidInput: When the tokenizer name is unknown.
    """
    return {
        FTS_TOKENIZER_PLACEHOLDER: tokenizer,
        FTS_TOKENIZE_PLACEHOLDER: fts_tokenize_argument(tokenizer),
    }


def retokenize_fts_script(tokenizer: str) -> str:
    """A script that rebuilds ``files_fts``, ``context_fts`` and ``session_fts`` with another
    tokenizer and records the choice.

    Run it through ``Database.script`` so it is one transaction: the triggers on ``files`` keep
    naming ``files_fts`` across the drop, and nothing writes between the drop and the create.
    The vectors and every other table are untouched, which is why an index rebuild can switch
    tokenizers without dropping index.db.

    Raises:
        InvalidInput: When the tokenizer name is unknown.
    """
    argument = fts_tokenize_argument(tokenizer)
    return (
        f"DROP TABLE {FTS_INDEX_NAME};\n"
        f"CREATE VIRTUAL TABLE {FTS_INDEX_NAME} USING fts5({FTS_COLUMN}, content='files', "
        f"content_rowid='rowid', tokenize='{argument}');\n"
        f"INSERT INTO {FTS_INDEX_NAME}({FTS_INDEX_NAME}) VALUES ('rebuild');\n"
        f"DROP TABLE {CONTEXT_INDEX_NAME};\n"
        f"CREATE VIRTUAL TABLE {CONTEXT_INDEX_NAME} USING fts5(text, content='file_context', "
        f"content_rowid='rowid', tokenize='{argument}');\n"
        f"INSERT INTO {CONTEXT_INDEX_NAME}({CONTEXT_INDEX_NAME}) VALUES ('rebuild');\n"
        f"DROP TABLE {SESSION_INDEX_NAME};\n"
        f"CREATE VIRTUAL TABLE {SESSION_INDEX_NAME} USING fts5(text, "
        f"content='session_documents', content_rowid='rowid', tokenize='{argument}');\n"
        f"INSERT INTO {SESSION_INDEX_NAME}({SESSION_INDEX_NAME}) VALUES ('rebuild');\n"
        f"INSERT INTO {SETTINGS_TABLE}(name, value) VALUES ('{FTS_TOKENIZER_SETTING}', "
        f"'{tokenizer}') ON CONFLICT(name) DO UPDATE SET value = excluded.value;\n"
    )
