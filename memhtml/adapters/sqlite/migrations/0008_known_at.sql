-- Transaction time (issue 15 item 5; docs/index-schema.md §7): the indexed first-parent line
-- and, per path, which blob it held from which commit to which. Kept by index update and
-- index rebuild, read by --known-at. A store indexed before this file has no line until its
-- next rebuild (index_settings 'history' absent): --known-at refuses rather than answer wrongly.

CREATE TABLE history_commits (
    seq INTEGER NOT NULL PRIMARY KEY CHECK (seq >= 1),
    sha TEXT NOT NULL,
    committed_at INTEGER NOT NULL
);
CREATE INDEX history_commits_at ON history_commits(committed_at, seq);

CREATE TABLE file_spans (
    path TEXT NOT NULL,
    blob_sha TEXT NOT NULL,
    from_seq INTEGER NOT NULL CHECK (from_seq >= 1),
    until_seq INTEGER CHECK (until_seq IS NULL OR until_seq > from_seq),
    PRIMARY KEY (path, from_seq)
);
CREATE INDEX file_spans_blob ON file_spans(path, blob_sha);
CREATE INDEX file_spans_from ON file_spans(from_seq);
CREATE INDEX file_spans_open ON file_spans(path) WHERE until_seq IS NULL;
