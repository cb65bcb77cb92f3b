-- The salience arm (adapters/sqlite/salience_sql.py) scores a read memory as its decay plus
-- the static part ln(1 + access_count) + max(outcome_score, 0). A memory last read long enough
-- before the search's instant has a decay far below 1, so when its static part is far enough
-- below the arm's budget-th best one it cannot rank: the arm scores only the rows at the top
-- of this index, and those whose stamp may be recent (salience_sql.py gives the bounds). The
-- expression is the arm's, character for character: SQLite uses an expression index only for
-- the expression it was built on.
CREATE INDEX state.access_static
    ON access((ln(1 + access_count) + max(outcome_score, 0.0)) DESC);
