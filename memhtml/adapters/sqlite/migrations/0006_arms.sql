-- The entity and graph arms and the authority step (issue 15; docs/index-schema.md §3).
--
-- 1. `fixes` joins the memory relations (docs/format.md §3). A CHECK cannot be altered in
--    place, so edges is rebuilt with the same columns, rows and indexes.
-- 2. files.pinned: the memhtml-pinned meta, read by the authority step.
-- 3. entity_terms: the entity vocabulary, one row per (memory, name as a query spells it,
--    entity key). Names, tags and aliases are normalised by the domain (domain/entities.py),
--    which SQL cannot do, so the rows are projected, not derived in a view.
-- 4. The watermark is cleared, so the next update rebuilds the index from git (keeping its
--    vectors): rows projected before this file have no vocabulary and no pin.

CREATE TABLE edges_0005 (
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
        'example_of', 'supports', 'laterally_related', 'fixes')),
    CHECK (edge_class <> 'person' OR rel IN ('about_person', 'authored_by')),
    CHECK (edge_class <> 'provenance' OR rel IN ('from_session')),
    CHECK (edge_class <> 'task' OR rel IN ('blocks', 'subtask_of'))
);
INSERT INTO edges_0005 SELECT src_path, rel, dst_path, edge_class, derived, strength, provenance,
    sleep_run, src_hash, dst_hash, created_at FROM edges;
DROP TABLE edges;
ALTER TABLE edges_0005 RENAME TO edges;
CREATE INDEX edges_src ON edges(src_path, edge_class);
CREATE INDEX edges_dst ON edges(dst_path, edge_class);
CREATE INDEX edges_rel ON edges(rel, edge_class);
CREATE INDEX edges_derived ON edges(derived, rel);

ALTER TABLE files ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0 CHECK (pinned IN (0, 1));

CREATE TABLE entity_terms (
    path TEXT NOT NULL REFERENCES files(path) ON DELETE CASCADE ON UPDATE CASCADE,
    surface TEXT NOT NULL,
    entity_key TEXT NOT NULL,
    PRIMARY KEY (path, surface, entity_key)
);
CREATE INDEX entity_terms_surface ON entity_terms(surface);
CREATE INDEX entity_terms_key ON entity_terms(entity_key, path);

UPDATE index_state SET head_sha = NULL;
