-- The salience arm (adapters/sqlite/salience_sql.py) ranks the memories nobody has read yet by
-- the decay of their updated_at alone, which orders them as their updated_at's milliseconds do.
-- With those milliseconds indexed, newest first, the arm reads the first ?2 of them instead of
-- decaying every row per search. The expression is instant_sql.stamp_ms_sql's, character for
-- character: SQLite uses an expression index only for the expression it was built on.
CREATE INDEX files_salience_order
    ON files((round(julianday(updated_at) * 86400000.0) - 210866760000000) DESC, path);
