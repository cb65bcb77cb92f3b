-- The contextual lexical document (docs/ranking.md §2.5): one row per indexed memory holding its
-- own full text followed by its tags, entity names, linked titles and its session neighbour's
-- text, with the neighbour's path (a document to redo when that memory changes). Rebuildable
-- like every index table.
CREATE TABLE file_context (
    path TEXT NOT NULL PRIMARY KEY REFERENCES files(path) ON DELETE CASCADE ON UPDATE CASCADE,
    text TEXT NOT NULL,
    prev_path TEXT
);
CREATE INDEX file_context_prev ON file_context(prev_path) WHERE prev_path IS NOT NULL;

CREATE VIRTUAL TABLE context_fts USING fts5(
    text, content='file_context', content_rowid='rowid', tokenize='{{FTS_TOKENIZE}}');

CREATE TRIGGER context_fts_insert AFTER INSERT ON file_context BEGIN
    INSERT INTO context_fts(rowid, text) VALUES (new.rowid, new.text);
END;
CREATE TRIGGER context_fts_delete AFTER DELETE ON file_context BEGIN
    INSERT INTO context_fts(context_fts, rowid, text) VALUES ('delete', old.rowid, old.text);
END;
CREATE TRIGGER context_fts_update AFTER UPDATE OF text ON file_context BEGIN
    INSERT INTO context_fts(context_fts, rowid, text) VALUES ('delete', old.rowid, old.text);
    INSERT INTO context_fts(rowid, text) VALUES (new.rowid, new.text);
END;

-- Every path whose files row was inserted, changed, moved or deleted since the last refresh,
-- written in the same transaction as the change: a pass that dies before its refresh leaves
-- them for the next one, so no document stays stale.
-- No key: a trigger's OR IGNORE would yield to the conflict policy of the statement that
-- fired it, so repeats are kept and the refresh reads them as a set.
CREATE TABLE context_dirty (path TEXT NOT NULL);

CREATE TRIGGER context_dirty_insert AFTER INSERT ON files BEGIN
    INSERT INTO context_dirty(path) VALUES (new.path);
END;
CREATE TRIGGER context_dirty_delete AFTER DELETE ON files BEGIN
    INSERT INTO context_dirty(path) VALUES (old.path);
END;
CREATE TRIGGER context_dirty_update AFTER UPDATE ON files BEGIN
    INSERT INTO context_dirty(path) VALUES (old.path), (new.path);
END;

-- An index built before this migration: every memory's document is computed by the first
-- refresh, which the next index update or read runs.
INSERT INTO context_dirty(path) SELECT path FROM files;
