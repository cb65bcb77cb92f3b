-- index.db, final schema of docs/index-schema.md §3 (the original's 0001_files …
-- 0010_trace_consolidations folded into one file). Applied once, in one transaction with its ledger
-- row; never edited after release: a change goes into a new numbered file.
-- The two double-brace placeholders below are filled by the runner from a closed set
-- (schema.FTS_TOKENIZERS), never from user text.

-- Single-column TEXT primary keys say NOT NULL: SQLite's legacy rule lets a TEXT PRIMARY KEY
-- hold NULL otherwise, and a NULL path would be a row nothing can address.

-- §3.1 one row per memory; column order = schema.FILE_COLUMNS.
CREATE TABLE files (
    path TEXT NOT NULL PRIMARY KEY,
    blob_sha TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    memory_type TEXT NOT NULL CHECK (memory_type IN (
        'episodic', 'semantic', 'procedural', 'agent_insight', 'user_preference',
        'error_pattern', 'verdict', 'precedent', 'arc', 'task')),
    title TEXT NOT NULL,
    body_text TEXT NOT NULL,
    gist TEXT NOT NULL DEFAULT '',
    fts_text TEXT NOT NULL DEFAULT '',
    disclosure_text TEXT NOT NULL DEFAULT '',
    para TEXT NOT NULL CHECK (para IN ('projects', 'areas', 'resources', 'archive')),
    workspace TEXT,
    confidence REAL NOT NULL DEFAULT 1.0 CHECK (confidence BETWEEN 0 AND 1),
    importance INTEGER NOT NULL DEFAULT 5 CHECK (importance BETWEEN 1 AND 10),
    archived INTEGER NOT NULL DEFAULT 0 CHECK (archived IN (0, 1)),
    origin_path TEXT,
    word_count INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    event_at TEXT,
    archived_at TEXT,
    valid_from TEXT,
    valid_until TEXT,
    reprieves INTEGER NOT NULL DEFAULT 0 CHECK (reprieves >= 0),
    needs_revision INTEGER NOT NULL DEFAULT 0 CHECK (needs_revision IN (0, 1)),
    author TEXT NOT NULL DEFAULT 'agent',
    session_id TEXT,
    prompt_id TEXT,
    turn_uuid TEXT,
    indexed_at TEXT NOT NULL,
    task_status TEXT CHECK (task_status IN ('todo', 'doing', 'blocked', 'done')),
    due_at TEXT,
    frame_key TEXT
);

-- The dedup: a second active non-task row with the same content cannot exist.
CREATE UNIQUE INDEX files_content_hash_active ON files(content_hash)
    WHERE archived = 0 AND memory_type <> 'task';
CREATE INDEX files_type_active ON files(memory_type) WHERE archived = 0;
CREATE INDEX files_workspace ON files(workspace) WHERE archived = 0;
CREATE INDEX files_para ON files(para);
CREATE INDEX files_updated ON files(updated_at) WHERE archived = 0;
CREATE INDEX files_event ON files(event_at) WHERE event_at IS NOT NULL;
CREATE INDEX files_session ON files(session_id) WHERE session_id IS NOT NULL;
CREATE INDEX files_ttl ON files(valid_until) WHERE valid_until IS NOT NULL AND archived = 0;
CREATE INDEX files_blob ON files(blob_sha);
CREATE INDEX files_task_status ON files(task_status) WHERE memory_type = 'task' AND archived = 0;
CREATE INDEX files_frame_key_active ON files(frame_key)
    WHERE archived = 0 AND memory_type <> 'task' AND frame_key IS NOT NULL;
CREATE INDEX files_origin ON files(origin_path) WHERE origin_path IS NOT NULL;

-- §3.2 children. ON UPDATE CASCADE because an archive move or rename changes the parent key.
CREATE TABLE file_tags (
    path TEXT NOT NULL REFERENCES files(path) ON DELETE CASCADE ON UPDATE CASCADE,
    tag TEXT NOT NULL,
    PRIMARY KEY (path, tag)
);
CREATE INDEX file_tags_tag ON file_tags(tag);

CREATE TABLE file_entities (
    path TEXT NOT NULL REFERENCES files(path) ON DELETE CASCADE ON UPDATE CASCADE,
    entity_type TEXT NOT NULL,
    entity_name TEXT NOT NULL,
    PRIMARY KEY (path, entity_type, entity_name)
);
CREATE INDEX file_entities_name ON file_entities(entity_type, entity_name);

CREATE TABLE file_facets (
    path TEXT NOT NULL REFERENCES files(path) ON DELETE CASCADE ON UPDATE CASCADE,
    name TEXT NOT NULL,
    value TEXT NOT NULL,
    numeric_value REAL,
    PRIMARY KEY (path, name, value)
);
CREATE INDEX file_facets_name ON file_facets(name);

CREATE TABLE file_citations (
    path TEXT NOT NULL REFERENCES files(path) ON DELETE CASCADE ON UPDATE CASCADE,
    text TEXT NOT NULL,
    href TEXT,
    PRIMARY KEY (path, text)
);

-- §3.3 chunks key on the content hash, so a moved body keeps its vectors.
CREATE TABLE chunks (
    chunk_id TEXT NOT NULL PRIMARY KEY,
    path TEXT NOT NULL REFERENCES files(path) ON DELETE CASCADE ON UPDATE CASCADE,
    content_hash TEXT NOT NULL,
    ordinal INTEGER NOT NULL CHECK (ordinal >= 0),
    text TEXT NOT NULL,
    char_count INTEGER NOT NULL
);
CREATE INDEX chunks_path ON chunks(path);
CREATE INDEX chunks_hash ON chunks(content_hash);
CREATE UNIQUE INDEX chunks_hash_ord ON chunks(content_hash, ordinal);

-- §3.4 the vector store: little-endian float32 blobs that vec_distance_cosine reads directly.
CREATE TABLE embeddings (
    chunk_id TEXT NOT NULL PRIMARY KEY REFERENCES chunks(chunk_id) ON DELETE CASCADE,
    model TEXT NOT NULL,
    dim INTEGER NOT NULL CHECK (dim > 0),
    vec BLOB NOT NULL CHECK (length(vec) = 4 * dim),
    created_at TEXT NOT NULL
);
CREATE INDEX embeddings_model ON embeddings(model);

-- §3.5 external-content FTS5 over one column; the tokenizer is chosen at index build.
CREATE VIRTUAL TABLE files_fts USING fts5(
    fts_text, content='files', content_rowid='rowid', tokenize='{{FTS_TOKENIZE}}');

CREATE TRIGGER files_fts_insert AFTER INSERT ON files BEGIN
    INSERT INTO files_fts(rowid, fts_text) VALUES (new.rowid, new.fts_text);
END;
-- The old text is mandatory: external-content FTS5 removes the terms it is told about.
CREATE TRIGGER files_fts_delete AFTER DELETE ON files BEGIN
    INSERT INTO files_fts(files_fts, rowid, fts_text) VALUES ('delete', old.rowid, old.fts_text);
END;
CREATE TRIGGER files_fts_update AFTER UPDATE OF fts_text ON files BEGIN
    INSERT INTO files_fts(files_fts, rowid, fts_text) VALUES ('delete', old.rowid, old.fts_text);
    INSERT INTO files_fts(rowid, fts_text) VALUES (new.rowid, new.fts_text);
END;

-- §3.6 edges: no foreign key, targets may dangle. Each class admits its own relations only.
CREATE TABLE edges (
    src_path TEXT NOT NULL,
    rel TEXT NOT NULL,
    dst_path TEXT NOT NULL,
    edge_class TEXT NOT NULL DEFAULT 'memory'
        CHECK (edge_class IN ('memory', 'person', 'provenance', 'task')),
    derived INTEGER NOT NULL DEFAULT 0 CHECK (derived IN (0, 1)),
    strength REAL NOT NULL DEFAULT 1.0 CHECK (strength BETWEEN 0 AND 1),
    provenance TEXT NOT NULL DEFAULT 'authored'
        CHECK (provenance IN ('authored', 'sleep', 'import')),
    sleep_run TEXT,
    src_hash TEXT,
    dst_hash TEXT,
    created_at TEXT NOT NULL,
    PRIMARY KEY (src_path, rel, dst_path),
    CHECK (src_path <> dst_path),
    CHECK (derived = 0 OR provenance = 'sleep'),
    CHECK (edge_class <> 'memory' OR rel IN (
        'supersedes', 'contradicts', 'caused_by', 'leads_to', 'part_of', 'relates_to',
        'example_of', 'supports', 'laterally_related')),
    CHECK (edge_class <> 'person' OR rel IN ('about_person', 'authored_by')),
    CHECK (edge_class <> 'provenance' OR rel IN ('from_session')),
    CHECK (edge_class <> 'task' OR rel IN ('blocks', 'subtask_of'))
);
CREATE INDEX edges_src ON edges(src_path, edge_class);
CREATE INDEX edges_dst ON edges(dst_path, edge_class);
CREATE INDEX edges_rel ON edges(rel, edge_class);
CREATE INDEX edges_derived ON edges(derived, rel);

-- §3.7 the watermark. No row = never indexed; NULL head_sha = a rebuild in flight or dead.
CREATE TABLE index_state (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    head_sha TEXT,
    embed_model TEXT NOT NULL,
    embed_dim INTEGER NOT NULL CHECK (embed_dim > 0),
    rebuilt_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);

-- Build-time settings (docs/decisions.md §12): the tokenizer files_fts was built with, so a
-- configuration that asks for another one is detected instead of silently ignored.
CREATE TABLE index_settings (
    name TEXT NOT NULL PRIMARY KEY,
    value TEXT NOT NULL
);
INSERT INTO index_settings(name, value) VALUES ('fts_tokenizer', '{{FTS_TOKENIZER}}');

-- §3.8 trace and sleep bookkeeping: never emptied by rebuild, never read by retrieval.
CREATE TABLE traces (
    session_id TEXT NOT NULL PRIMARY KEY,
    slug TEXT NOT NULL,
    cwd TEXT,
    git_branch TEXT,
    entrypoint TEXT,
    model TEXT,
    version TEXT,
    started_at TEXT,
    ended_at TEXT,
    prompt_count INTEGER NOT NULL DEFAULT 0,
    turn_count INTEGER NOT NULL DEFAULT 0,
    agent_count INTEGER NOT NULL DEFAULT 0,
    first_prompt TEXT NOT NULL DEFAULT '',
    ai_title TEXT,
    file_path TEXT NOT NULL,
    file_size INTEGER NOT NULL,
    file_mtime TEXT NOT NULL,
    search_text TEXT NOT NULL DEFAULT '',
    indexed_at TEXT NOT NULL
);
CREATE INDEX traces_slug ON traces(slug);
CREATE INDEX traces_cwd ON traces(cwd);
CREATE INDEX traces_started ON traces(started_at);
CREATE INDEX traces_file_mtime ON traces(file_mtime);

CREATE VIRTUAL TABLE traces_fts USING fts5(
    search_text, content='traces', content_rowid='rowid');
CREATE TRIGGER traces_fts_insert AFTER INSERT ON traces BEGIN
    INSERT INTO traces_fts(rowid, search_text) VALUES (new.rowid, new.search_text);
END;
CREATE TRIGGER traces_fts_delete AFTER DELETE ON traces BEGIN
    INSERT INTO traces_fts(traces_fts, rowid, search_text)
        VALUES ('delete', old.rowid, old.search_text);
END;
CREATE TRIGGER traces_fts_update AFTER UPDATE OF search_text ON traces BEGIN
    INSERT INTO traces_fts(traces_fts, rowid, search_text)
        VALUES ('delete', old.rowid, old.search_text);
    INSERT INTO traces_fts(rowid, search_text) VALUES (new.rowid, new.search_text);
END;

CREATE TABLE trace_prompts (
    session_id TEXT NOT NULL REFERENCES traces(session_id) ON DELETE CASCADE,
    prompt_id TEXT NOT NULL,
    turn_uuid TEXT NOT NULL,
    ordinal INTEGER NOT NULL,
    at TEXT NOT NULL,
    agent_id TEXT,
    text_head TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (session_id, prompt_id)
);
CREATE INDEX trace_prompts_turn ON trace_prompts(session_id, turn_uuid);

CREATE TABLE trace_watermarks (
    file_path TEXT NOT NULL PRIMARY KEY,
    size INTEGER NOT NULL,
    mtime TEXT NOT NULL,
    byte_off INTEGER NOT NULL DEFAULT 0 CHECK (byte_off >= 0),
    scanned_at TEXT NOT NULL
);

-- No foreign key: a link outlives the file (archive, delete) and the trace it names.
CREATE TABLE memory_session_links (
    path TEXT NOT NULL,
    session_id TEXT NOT NULL,
    link_kind TEXT NOT NULL CHECK (link_kind IN ('wrote', 'read', 'corrected', 'reinforced')),
    at TEXT NOT NULL,
    prompt_id TEXT,
    turn_uuid TEXT,
    PRIMARY KEY (path, session_id, link_kind, at)
);
CREATE INDEX memory_session_links_session ON memory_session_links(session_id);
CREATE INDEX memory_session_links_path ON memory_session_links(path);

CREATE TABLE trace_consolidations (
    session_id TEXT NOT NULL PRIMARY KEY,
    run_id TEXT NOT NULL,
    consolidated_at TEXT NOT NULL
);
CREATE INDEX trace_consolidations_run ON trace_consolidations(run_id);

CREATE TABLE sleep_runs (
    run_id TEXT NOT NULL PRIMARY KEY,
    branch TEXT NOT NULL,
    base_sha TEXT NOT NULL,
    head_sha TEXT,
    status TEXT NOT NULL CHECK (status IN ('running', 'review', 'merged', 'abandoned', 'failed')),
    started_at TEXT NOT NULL,
    ended_at TEXT
);

CREATE TABLE sleep_phases (
    run_id TEXT NOT NULL REFERENCES sleep_runs(run_id) ON DELETE CASCADE,
    phase TEXT NOT NULL,
    ordinal INTEGER NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('ok', 'failed', 'skipped')),
    commit_sha TEXT,
    counts TEXT NOT NULL DEFAULT '{}',
    error TEXT,
    llm_calls INTEGER NOT NULL DEFAULT 0,
    started_at TEXT NOT NULL,
    ended_at TEXT,
    PRIMARY KEY (run_id, phase)
);
