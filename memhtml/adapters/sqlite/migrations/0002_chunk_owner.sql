-- Identical bodies share one chunk row (chunks key on the content hash), and the row points at
-- one owning path. When that owner goes away, the row moves to another file with the same
-- content instead of cascading away with its vector; only the last owner's delete removes it.
-- The lowest remaining path takes over, so the outcome does not depend on projection order.

CREATE INDEX files_content_hash ON files(content_hash);

CREATE TRIGGER chunks_keep_shared_owner BEFORE DELETE ON files BEGIN
    UPDATE chunks SET path = (
        SELECT f.path FROM files f
        WHERE f.content_hash = OLD.content_hash AND f.path <> OLD.path
        ORDER BY f.path LIMIT 1)
    WHERE path = OLD.path AND EXISTS (
        SELECT 1 FROM files f WHERE f.content_hash = OLD.content_hash AND f.path <> OLD.path);
END;
