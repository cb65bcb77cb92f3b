-- A context document shares its memory's rowid (files.rowid), so the context arm
-- (adapters/sqlite/arm_sql.py) reaches the memory's row from a full-text match by rowid, as the
-- fts arm does, instead of through the document's path and the files' path index: ~1.3 ms of
-- a warm search at 10,000 memories (3.4 -> 2.1 ms for the arm's statement). The refresh
-- (context_sql.py) writes new documents under their memory's rowid; a files row keeps its
-- rowid for life (upserts update in place, a rename updates the path) and its document goes
-- with it (ON DELETE CASCADE), so the two stay equal. Here the existing documents are written
-- again under their memories' rowids (the triggers keep context_fts in step).
CREATE TEMP TABLE context_rekeyed AS SELECT path, text, prev_path FROM file_context;
DELETE FROM file_context;
INSERT INTO file_context(rowid, path, text, prev_path)
    SELECT f.rowid, c.path, c.text, c.prev_path
    FROM context_rekeyed c JOIN files f ON f.path = c.path;
DROP TABLE temp.context_rekeyed;
