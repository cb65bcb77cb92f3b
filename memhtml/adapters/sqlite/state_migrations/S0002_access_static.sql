-- The salience arm (adapters/sqlite/salience_sql.py) scores a read memory as its decay plus
-- ln(1 + access_count) + max(outcome_score, 0). The decay of a stamp at or before the search's
-- instant is at most 1, so a read memory whose static part is more than 1 below the arm's
-- budget-th best static part cannot rank: the arm scores only the rows at the top of this
-- index (and those whose stamp could be ahead of the instant). The expression is the arm's,
-- character for character: SQLite uses an expression index only for the expression it was
-- built on.
CREATE INDEX state.access_static
    ON access((ln(1 + access_count) + max(outcome_score, 0.0)) DESC);
