-- The time arm (adapters/sqlite/arm_sql.py) keeps the memories whose event time, else
-- creation time, falls on a day inside a window the query names, comparing the stamp's first
-- ten characters as text (domain/query_dates.DateWindow.holds). Without an index it tested
-- every file against every window, parsing the windows' JSON again for each file: a query
-- naming a month cost a warm search at 10,000 memories ~2.5x one naming none. With the day
-- indexed, each window is a range of this index. The expression is the arm's, character for
-- character: SQLite uses an expression index only for the expression it was built on.
CREATE INDEX files_event_day ON files(substr(coalesce(event_at, created_at), 1, 10));
