-- A counter that every change to `embeddings` moves, with a random epoch drawn when the index
-- file is created (docs/index-schema.md §3). A process that keeps the chunk vectors in memory
-- for the vector arm (adapters/sqlite/vector_preselect.py) reads the pair before each search
-- and reloads when either differs, so it never ranks with a vector the index no longer holds.

CREATE TABLE embedding_generation (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    epoch TEXT NOT NULL,
    n INTEGER NOT NULL
);
INSERT INTO embedding_generation (id, epoch, n) VALUES (1, lower(hex(randomblob(8))), 0);

CREATE TRIGGER embedding_generation_insert AFTER INSERT ON embeddings BEGIN
    UPDATE embedding_generation SET n = n + 1 WHERE id = 1;
END;
CREATE TRIGGER embedding_generation_delete AFTER DELETE ON embeddings BEGIN
    UPDATE embedding_generation SET n = n + 1 WHERE id = 1;
END;
CREATE TRIGGER embedding_generation_update AFTER UPDATE ON embeddings BEGIN
    UPDATE embedding_generation SET n = n + 1 WHERE id = 1;
END;
