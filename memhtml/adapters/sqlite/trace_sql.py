"""The trace plane's statements (docs/index-schema.md §6).

``SESSION_UPSERT`` recomputes one session's ``traces`` row from its files in one statement; its
pure twin is ``memhtml.domain.trace_sessions.session_row``, and the storage contract suite
holds the two together. Every value comes from a bound parameter.
"""

from __future__ import annotations

from typing import Final

FILE_MARKS: Final = (
    "SELECT w.file_path, w.size, w.mtime, w.byte_off, f.session_id "
    "FROM trace_watermarks AS w LEFT JOIN trace_files AS f ON f.file_path = w.file_path "
    "WHERE w.file_path IN ({marks})"
)
FILE_EXTRACT: Final = (
    "SELECT source, session_id, sidechain, agent_id, cwd, entrypoint, git_branch, model, "
    "version, ai_title, started_at, ended_at, turn_count FROM trace_files WHERE file_path = ?"
)
FILE_PROMPTS: Final = (
    "SELECT prompt_id, turn_uuid, ordinal, at, agent_id, text_head FROM trace_prompts "
    "WHERE file_path = ? ORDER BY ordinal, prompt_id"
)
DELETE_FILE_PROMPTS: Final = "DELETE FROM trace_prompts WHERE file_path = ?"
UPSERT_FILE: Final = (
    "INSERT INTO trace_files (file_path, session_id, source, sidechain, agent_id, cwd, slug, "
    "entrypoint, git_branch, model, version, ai_title, started_at, ended_at, turn_count) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
    "ON CONFLICT (file_path) DO UPDATE SET session_id = excluded.session_id, "
    "source = excluded.source, sidechain = excluded.sidechain, agent_id = excluded.agent_id, "
    "cwd = excluded.cwd, slug = excluded.slug, entrypoint = excluded.entrypoint, "
    "git_branch = excluded.git_branch, model = excluded.model, version = excluded.version, "
    "ai_title = excluded.ai_title, started_at = excluded.started_at, "
    "ended_at = excluded.ended_at, turn_count = excluded.turn_count"
)
UPSERT_WATERMARK: Final = (
    "INSERT INTO trace_watermarks (file_path, size, mtime, byte_off, scanned_at) "
    "VALUES (?, ?, ?, ?, ?) ON CONFLICT (file_path) DO UPDATE SET size = excluded.size, "
    "mtime = excluded.mtime, byte_off = excluded.byte_off, scanned_at = excluded.scanned_at"
)
# The prompts reference the row, so it must exist before them; SESSION_UPSERT then fills it.
# DO NOTHING, never OR REPLACE: a replace deletes the row and cascades its prompts away.
SESSION_PLACEHOLDER: Final = (
    "INSERT INTO traces (session_id, slug, file_path, file_size, file_mtime, indexed_at) "
    "VALUES (?, '', ?, 0, '', ?) ON CONFLICT (session_id) DO NOTHING"
)
INSERT_PROMPT: Final = (
    "INSERT INTO trace_prompts (session_id, prompt_id, turn_uuid, ordinal, at, agent_id, "
    "text_head, file_path) VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
    "ON CONFLICT (session_id, prompt_id) DO NOTHING"
)
DROP_EMPTY_SESSION: Final = (
    "DELETE FROM traces WHERE session_id = ?1 "
    "AND NOT EXISTS (SELECT 1 FROM trace_files WHERE session_id = ?1)"
)
_FIRST: Final = "(SELECT {col} FROM f WHERE {col} IS NOT NULL ORDER BY r LIMIT 1)"
SESSION_UPSERT: Final = f"""
WITH f AS (
    SELECT tf.*, w.size AS w_size, w.mtime AS w_mtime,
           row_number() OVER (ORDER BY tf.sidechain, tf.file_path) AS r
    FROM trace_files AS tf JOIN trace_watermarks AS w ON w.file_path = tf.file_path
    WHERE tf.session_id = ?1
),
s AS (
    SELECT
        {_FIRST.format(col="source")} AS source,
        coalesce({_FIRST.format(col="slug")}, '') AS slug,
        {_FIRST.format(col="cwd")} AS cwd,
        {_FIRST.format(col="git_branch")} AS git_branch,
        {_FIRST.format(col="entrypoint")} AS entrypoint,
        {_FIRST.format(col="model")} AS model,
        {_FIRST.format(col="version")} AS version,
        (SELECT min(started_at) FROM f) AS started_at,
        (SELECT max(ended_at) FROM f) AS ended_at,
        (SELECT count(*) FROM trace_prompts WHERE session_id = ?1) AS prompt_count,
        (SELECT coalesce(sum(turn_count), 0) FROM f) AS turn_count,
        (SELECT count(DISTINCT agent_id) FROM f) AS agent_count,
        coalesce((SELECT p.text_head FROM trace_prompts AS p JOIN f ON f.file_path = p.file_path
                  WHERE p.session_id = ?1 ORDER BY f.r, p.ordinal LIMIT 1), '') AS first_prompt,
        {_FIRST.format(col="ai_title")} AS ai_title,
        (SELECT file_path FROM f ORDER BY r LIMIT 1) AS file_path,
        (SELECT w_size FROM f ORDER BY r LIMIT 1) AS file_size,
        (SELECT w_mtime FROM f ORDER BY r LIMIT 1) AS file_mtime
)
INSERT INTO traces (session_id, source, slug, cwd, git_branch, entrypoint, model, version,
    started_at, ended_at, prompt_count, turn_count, agent_count, first_prompt, ai_title,
    file_path, file_size, file_mtime, search_text, indexed_at)
SELECT ?1, source, slug, cwd, git_branch, entrypoint, model, version, started_at, ended_at,
    prompt_count, turn_count, agent_count, first_prompt, ai_title, file_path, file_size,
    file_mtime,
    first_prompt || CASE WHEN ai_title IS NULL THEN '' ELSE char(10) || ai_title END,
    ?2
FROM s WHERE EXISTS (SELECT 1 FROM f)
ON CONFLICT (session_id) DO UPDATE SET source = excluded.source, slug = excluded.slug,
    cwd = excluded.cwd, git_branch = excluded.git_branch, entrypoint = excluded.entrypoint,
    model = excluded.model, version = excluded.version, started_at = excluded.started_at,
    ended_at = excluded.ended_at, prompt_count = excluded.prompt_count,
    turn_count = excluded.turn_count, agent_count = excluded.agent_count,
    first_prompt = excluded.first_prompt, ai_title = excluded.ai_title,
    file_path = excluded.file_path, file_size = excluded.file_size,
    file_mtime = excluded.file_mtime, search_text = excluded.search_text,
    indexed_at = excluded.indexed_at
"""
SESSION_COLUMNS: Final = (
    "session_id, source, slug, cwd, git_branch, entrypoint, model, version, started_at, "
    "ended_at, prompt_count, turn_count, agent_count, first_prompt, ai_title, file_path, "
    "file_size, file_mtime, search_text, indexed_at"
)
ONE_SESSION: Final = f"SELECT {SESSION_COLUMNS} FROM traces WHERE session_id = ?"
# ?1 project, ?2 its directory prefix, ?3 since, ?4 until, ?5 source, ?6 limit; the twin is
# memhtml.domain.trace_sessions.session_admitted and recent_first.
SESSIONS: Final = f"""
SELECT {SESSION_COLUMNS} FROM traces
WHERE (?1 IS NULL OR cwd = ?1 OR substr(cwd, 1, length(?2)) = ?2 OR slug = ?1)
  AND (?3 IS NULL OR coalesce(ended_at, started_at) >= ?3)
  AND (?4 IS NULL OR coalesce(started_at, ended_at) < ?4)
  AND (?5 IS NULL OR source = ?5)
ORDER BY coalesce(ended_at, started_at, indexed_at) DESC, session_id
LIMIT ?6
"""
SESSION_PROMPTS: Final = (
    "SELECT prompt_id, turn_uuid, ordinal, at, agent_id, text_head FROM trace_prompts "
    "WHERE session_id = ? ORDER BY at, file_path, ordinal, prompt_id"
)
COUNTS: Final = (
    "SELECT (SELECT count(*) FROM trace_watermarks), (SELECT count(*) FROM traces), "
    "(SELECT count(*) FROM trace_prompts)"
)
