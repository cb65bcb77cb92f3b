-- The session document (docs/ranking.md §2.9): per session of episodic memories, the full text
-- of its members in event order, so the session arm can rank whole conversations by the words
-- a question spreads over several turns. Keyed like the context document's neighbour window:
-- session id and archived flag. Rebuildable like every index table.
CREATE TABLE session_documents (
    session_id TEXT NOT NULL,
    archived INTEGER NOT NULL CHECK (archived IN (0, 1)),
    text TEXT NOT NULL,
    PRIMARY KEY (session_id, archived)
);

CREATE VIRTUAL TABLE session_fts USING fts5(
    text, content='session_documents', content_rowid='rowid', tokenize='{{FTS_TOKENIZE}}');

CREATE TRIGGER session_fts_insert AFTER INSERT ON session_documents BEGIN
    INSERT INTO session_fts(rowid, text) VALUES (new.rowid, new.text);
END;
CREATE TRIGGER session_fts_delete AFTER DELETE ON session_documents BEGIN
    INSERT INTO session_fts(session_fts, rowid, text) VALUES ('delete', old.rowid, old.text);
END;
CREATE TRIGGER session_fts_update AFTER UPDATE OF text ON session_documents BEGIN
    INSERT INTO session_fts(session_fts, rowid, text) VALUES ('delete', old.rowid, old.text);
    INSERT INTO session_fts(rowid, text) VALUES (new.rowid, new.text);
END;

-- Every session a files row entered or left since the last refresh, written in the same
-- transaction as the change (the old and the new session of a moved memory both change). No
-- key, for the reason context_dirty has none.
CREATE TABLE session_dirty (session_id TEXT NOT NULL, archived INTEGER NOT NULL);

CREATE TRIGGER session_dirty_insert AFTER INSERT ON files WHEN new.session_id IS NOT NULL BEGIN
    INSERT INTO session_dirty(session_id, archived) VALUES (new.session_id, new.archived);
END;
CREATE TRIGGER session_dirty_delete AFTER DELETE ON files WHEN old.session_id IS NOT NULL BEGIN
    INSERT INTO session_dirty(session_id, archived) VALUES (old.session_id, old.archived);
END;
CREATE TRIGGER session_dirty_update AFTER UPDATE ON files
WHEN old.session_id IS NOT NULL OR new.session_id IS NOT NULL BEGIN
    INSERT INTO session_dirty(session_id, archived)
    SELECT old.session_id, old.archived WHERE old.session_id IS NOT NULL
    UNION ALL SELECT new.session_id, new.archived WHERE new.session_id IS NOT NULL;
END;

-- An index built before this migration: every session's document is computed by the first
-- refresh, which the next index update or read runs.
INSERT INTO session_dirty(session_id, archived)
SELECT DISTINCT session_id, archived FROM files WHERE session_id IS NOT NULL;
