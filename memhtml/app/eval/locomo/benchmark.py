"""``memhtml eval locomo`` end to end: find and read the data, build the embedder, run every
conversation in a scratch folder, optionally time CLI searches, and lay out the report.

The command module only parses flags, calls :func:`run_locomo` and writes ``--out``.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Final

from memhtml.app.eval.locomo.data_path import resolve_data_path
from memhtml.app.eval.locomo.dataset import EXPECTED_SHA256, load_dataset
from memhtml.app.eval.locomo.queries import build_queries
from memhtml.app.eval.locomo.report import RunContext, report_data
from memhtml.app.eval.locomo.runner import (
    ConversationRun,
    RunConfig,
    run_benchmark,
    scratch_root,
    select_conversations,
)
from memhtml.domain.errors import MemhtmlError
from memhtml.ports.retrieval import RankingOptions

ENV_EMBED: Final = "MEMHTML_EMBED"
ENV_FTS_TOKENIZER: Final = "MEMHTML_FTS_TOKENIZER"
CONSOLE_SCRIPT: Final = "memhtml"
CLI_TIMEOUT_S: Final = 300

logger = logging.getLogger(__name__)


class CliSearchFailed(MemhtmlError):
    """A timed ``memhtml search`` subprocess failed, so its time measures nothing."""

    def __init__(self, exit_status: int, code: str | None) -> None:
        self.exit_status = exit_status
        self.code = code
        super().__init__(f"a timed CLI search exited {exit_status} ({code or 'no envelope'})")


def run_locomo(config: RunConfig, *, data: str | None, cli_latency: int = 0) -> dict[str, object]:
    """Run the benchmark and return the ``eval.locomo`` data.

    Args:
        config: The run's settings; ``config.embed`` must match ``config.mode``.
        data: ``--data``, or None for the default path (docs/decisions.md §25).
        cli_latency: Also time this many ``memhtml search`` subprocesses against the first
            conversation's store (0: none).

    Raises:
        NotFound: No data file.
        LocomoDataInvalid: The file is not LoCoMo-shaped.
        LocomoConversionFailed, ModelUnavailable, VectorCoverageLow: See the runner.
    """
    from memhtml.app.bootstrap import build_embedder

    dataset = load_dataset(resolve_data_path(data))
    if dataset.sha256 != EXPECTED_SHA256:
        logger.warning(
            "locomo data sha256 %s is not the pinned %s: numbers will not compare",
            dataset.sha256[:12],
            EXPECTED_SHA256[:12],
        )
    selected = select_conversations(dataset, config.conversations)
    embedder = build_embedder(config.embed) if config.mode == "hybrid" else None
    questions = {c.sample_id: [q.question for q in build_queries(c).queries] for c in selected}
    cli_times: list[float] = []

    def probe(run: ConversationRun) -> None:
        if cli_latency > 0 and not cli_times:
            cli_times.extend(
                time_cli_searches(run.root, questions[run.sample_id][:cli_latency], config)
            )

    with scratch_root() as workdir:
        runs = run_benchmark(
            selected, config, workdir=Path(workdir), embedder=embedder, after_each=probe
        )
    context = RunContext(
        dataset=dataset,
        config=config,
        embed_model=None if embedder is None else embedder.watermark,
        cli_latency_ms=tuple(cli_times),
    )
    return report_data(context, runs)


def search_argv(root: str, question: str, config: RunConfig) -> list[str]:
    """The ``memhtml search`` command line equivalent to the harness's in-process search."""
    options: RankingOptions = config.options
    argv = [*_console_script(), "--repo", root, "--dense", "search", question]
    argv += ["--limit", str(config.limit), "--rrf-k", repr(options.rrf_k)]
    if options.arms is not None:
        argv += ["--arms", ",".join(options.arms)]
    if options.weights:
        argv += ["--weights", ",".join(f"{name}={weight!r}" for name, weight in options.weights)]
    if options.gate_priors:
        argv.append("--gate-priors")
    if options.fts_stopwords:
        argv.append("--fts-stopwords")
    if options.authority:
        argv.append("--authority")
    return argv


def time_cli_searches(root: str, questions: Sequence[str], config: RunConfig) -> list[float]:
    """Wall milliseconds of one fresh ``memhtml search`` process per question.

    Raises:
        CliSearchFailed: A search process exited non-zero.
    """
    env: Mapping[str, str] = {
        **os.environ,
        # The stores' own backend (local, e5 or off), so the child opens the same space.
        ENV_EMBED: config.embed.backend,
        ENV_FTS_TOKENIZER: config.fts_tokenizer,
    }
    times: list[float] = []
    for question in questions:
        started = time.perf_counter()
        finished = subprocess.run(
            search_argv(root, question, config),
            env=dict(env),
            capture_output=True,
            timeout=CLI_TIMEOUT_S,
            check=False,
        )
        times.append((time.perf_counter() - started) * 1000)
        if finished.returncode != 0:
            raise CliSearchFailed(finished.returncode, _error_code(finished.stdout))
    return times


def _error_code(stdout: bytes) -> str | None:
    try:
        envelope = json.loads(stdout)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None
    code = envelope.get("code") if isinstance(envelope, dict) else None
    return code if isinstance(code, str) else None


def _console_script() -> list[str]:
    """The installed ``memhtml`` script beside this interpreter, else the same entry point
    through ``python -c`` (a checkout run without installing)."""
    script = Path(sys.executable).with_name(CONSOLE_SCRIPT)
    if script.is_file():
        return [str(script)]
    return [sys.executable, "-c", "from memhtml.app.cli import main; main()"]
