-- The salience arm's window (issue 17 item 3; adapters/sqlite/salience_sql.py).
--
-- Files the state plane holds no row for score their decay alone, which only grows with the
-- update instant. With that instant indexed, newest first, the arm reads a window of such files
-- from the index and stops, instead of parsing every file's stamp on every search. The
-- expression must stay exactly salience_sql.UPDATED_MS_SQL, or SQLite will not use the index
-- (a test compares them).
CREATE INDEX files_updated_ms ON files((round(julianday(updated_at) * 86400000.0) - 210866760000000) DESC, path);
