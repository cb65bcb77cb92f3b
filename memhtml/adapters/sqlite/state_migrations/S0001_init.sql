-- state.db, final schema of docs/index-schema.md §4 (the original's S0001_access and
-- S0002_entity_corroboration folded into one file). Every name is qualified with the `state`
-- schema: this file runs on the connection that also holds index.db as `main`.
-- No foreign keys: cross-database foreign keys do not exist, and these rows must outlive a
-- deleted index.db.

CREATE TABLE state.access (
    path TEXT NOT NULL PRIMARY KEY,
    access_count INTEGER NOT NULL DEFAULT 0 CHECK (access_count >= 0),
    reinforcement_count INTEGER NOT NULL DEFAULT 0 CHECK (reinforcement_count >= 0),
    -- EWMA of outcomes (alpha 0.3), so it stays inside the range of its inputs.
    outcome_score REAL NOT NULL DEFAULT 0.0 CHECK (outcome_score BETWEEN -1 AND 1),
    last_accessed_at TEXT,
    last_reinforced_at TEXT,
    updated_at TEXT NOT NULL
);
CREATE INDEX state.access_last ON access(last_accessed_at);

CREATE TABLE state.edge_corroboration (
    src_path TEXT NOT NULL,
    rel TEXT NOT NULL,
    dst_path TEXT NOT NULL,
    detections INTEGER NOT NULL DEFAULT 1 CHECK (detections >= 1),
    confirmed INTEGER NOT NULL DEFAULT 0 CHECK (confirmed IN (0, 1)),
    promoted INTEGER NOT NULL DEFAULT 0 CHECK (promoted IN (0, 1)),
    updated_at TEXT NOT NULL,
    PRIMARY KEY (src_path, rel, dst_path)
);

CREATE TABLE state.entity_corroboration (
    entity_type TEXT NOT NULL,
    alias_name TEXT NOT NULL,
    canonical_name TEXT NOT NULL,
    detections INTEGER NOT NULL DEFAULT 1 CHECK (detections >= 1),
    confirmed INTEGER NOT NULL DEFAULT 0 CHECK (confirmed IN (0, 1)),
    promoted INTEGER NOT NULL DEFAULT 0 CHECK (promoted IN (0, 1)),
    updated_at TEXT NOT NULL,
    PRIMARY KEY (entity_type, alias_name, canonical_name)
);
CREATE INDEX state.entity_corroboration_pending ON entity_corroboration(entity_type, promoted);
