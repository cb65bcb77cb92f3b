-- A chunk row that several files share (identical bodies) points at one owner, and the arms
-- that read chunks (vector, snippets) join on that owner's path. Until now the owner was the
-- path projected last on insert and the lowest remaining path on delete, so an incremental
-- update and a rebuild could disagree, and an archived copy (archive/… sorts before areas/…)
-- could take the vector away from the live memory it was copied from. The owner is now the
-- same whatever the order: a path outside archive/ before one inside it, then the lowest path
-- (adapters/sqlite/projection_sql.py spells the same order for the upsert and the re-point).

DROP TRIGGER chunks_keep_shared_owner;

CREATE TRIGGER chunks_keep_shared_owner BEFORE DELETE ON files BEGIN
    UPDATE chunks SET path = (
        SELECT f.path FROM files f
        WHERE f.content_hash = OLD.content_hash AND f.path <> OLD.path
        ORDER BY substr(f.path, 1, 8) = 'archive/', f.path LIMIT 1)
    WHERE path = OLD.path AND EXISTS (
        SELECT 1 FROM files f WHERE f.content_hash = OLD.content_hash AND f.path <> OLD.path);
END;

UPDATE chunks SET path = (
    SELECT f.path FROM files f WHERE f.content_hash = chunks.content_hash
    ORDER BY substr(f.path, 1, 8) = 'archive/', f.path LIMIT 1)
WHERE EXISTS (
    SELECT 1 FROM files f WHERE f.content_hash = chunks.content_hash AND f.path <> chunks.path);
