-- The contextual lexical document (docs/ranking.md §10): one row per indexed memory holding its
-- own full text followed by its tags, entity names, linked titles and its session neighbour's
-- text. Rebuildable like every index table; the indexer refreshes it after each pass, and this
-- migration's last statement fills it for an index built before it existed.
CREATE TABLE file_context (
    path TEXT NOT NULL PRIMARY KEY REFERENCES files(path) ON DELETE CASCADE ON UPDATE CASCADE,
    text TEXT NOT NULL
);

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

INSERT INTO file_context(path, text)
SELECT f.path, coalesce(concat_ws(char(10), nullif(f.fts_text, ''),
    nullif((SELECT group_concat(t.tag, ' ' ORDER BY t.tag) FROM file_tags t
        WHERE t.path = f.path), ''),
    nullif((SELECT group_concat(n.name, ' ' ORDER BY n.name) FROM (SELECT DISTINCT
        e.entity_name AS name FROM file_entities e WHERE e.path = f.path) n), ''),
    nullif((SELECT group_concat(d.title, char(10) ORDER BY d.path) FROM files d WHERE d.path IN
        (SELECT x.dst_path FROM edges x WHERE x.src_path = f.path AND x.derived = 0)
        AND d.path <> f.path AND d.title <> ''), ''),
    nullif(f.prev_text, '')), '')
FROM (SELECT path, title, fts_text,
    CASE WHEN memory_type = 'episodic' AND session_id IS NOT NULL
    THEN lag(fts_text) OVER (PARTITION BY memory_type = 'episodic', session_id IS NULL,
        session_id, archived ORDER BY coalesce(event_at, created_at), path) END AS prev_text
    FROM files) f;
