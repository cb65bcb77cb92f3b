-- The trace plane as the scanner writes it (issue 20; docs/index-schema.md §6).
-- A session can span several transcript files (Claude Code writes each subagent's
-- conversation to its own file under the parent's session id), and a rescan of one file must
-- replace only that file's part. So each file's extract is kept on its own in trace_files, each
-- prompt remembers the file that wrote it, and the traces row is recomputed from the files.

ALTER TABLE traces ADD COLUMN source TEXT;
ALTER TABLE trace_prompts ADD COLUMN file_path TEXT;
CREATE INDEX trace_prompts_file ON trace_prompts(file_path);

CREATE TABLE trace_files (
    file_path TEXT NOT NULL PRIMARY KEY,
    session_id TEXT,
    source TEXT,
    sidechain INTEGER NOT NULL DEFAULT 0 CHECK (sidechain IN (0, 1)),
    agent_id TEXT,
    cwd TEXT,
    slug TEXT,
    entrypoint TEXT,
    git_branch TEXT,
    model TEXT,
    version TEXT,
    ai_title TEXT,
    started_at TEXT,
    ended_at TEXT,
    turn_count INTEGER NOT NULL DEFAULT 0 CHECK (turn_count >= 0)
);
CREATE INDEX trace_files_session ON trace_files(session_id) WHERE session_id IS NOT NULL;
