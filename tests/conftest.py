"""Suite-wide switches: no test waits on a real backoff schedule, and no property test fails
on how long an example took.

Hypothesis's default 200 ms deadline turns a loaded machine (a shared 2-core box, a busy CI
runner) into failures of tests that assert nothing about time; speed is measured in bench/.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Final

import pytest
from hypothesis import settings

from memhtml.adapters.sqlite import retry

# No command a test runs starts the warm embedding helper, which would outlive the test and be
# shared between tests; tests/integration/test_embed_helper*.py turn it on in a folder of their
# own and stop what they start. Set before any test starts, so subprocesses inherit it. A test
# that builds its environment without our variables still keeps the runtime folder, a private
# one, and whatever helper it started there is stopped when the session ends.
os.environ["MEMHTML_EMBED_HELPER"] = "off"
SESSION_RUNTIME: Final = Path(tempfile.mkdtemp(prefix="memhtml-test-run-"))
os.environ["XDG_RUNTIME_DIR"] = str(SESSION_RUNTIME)

settings.register_profile("memhtml", deadline=None)
settings.load_profile("memhtml")


@pytest.fixture(autouse=True, scope="session")
def _no_backoff_sleeps() -> Iterator[None]:
    """Busy retries run without sleeping; tests that pin the schedule set it themselves."""
    retry.set_testing(True)
    yield
    retry.set_testing(False)


# The suite's longest tests (10 s or more each on an idle core), longest first. They run
# before everything else, so that pytest-xdist's workers take them in turn at the start and
# the short tests fill in around them; collected in file order, one of them would otherwise
# start near the end and finish the run alone. Only the order changes: a name missing here
# still runs, in its place.
LONG_FIRST: Final = (
    "tests/faults/test_kill_loop.py::",
    "tests/integration/test_sync_three_clones.py::",
    "tests/integration/test_known_at_twin.py::test_known_at_answers_what_each_commit_held",
    "tests/integration/test_sync_status_cli.py::test_status_and_doctor_count_ahead_and_behind",
    "tests/integration/test_near_duplicate_gate.py::test_near_twin_controls_report_their_target",
    "tests/contract/test_memory_parser_contract.py::test_mutated_renders_parse_alike",
    "tests/contract/test_scope_sql.py::test_scope_filter_admits_what_the_twin_admits",
    "tests/contract/test_retrieval_fusion_twin.py::",
    "tests/integration/test_write_concurrent_processes.py::test_concurrent_cli_writes",
    "tests/contract/test_reinforce_sql.py::test_upsert_replays_the_twin",
    "tests/integration/test_html_renderer.py::test_a_caller_article_renders_to_its_fresh_parse",
    "tests/integration/test_e5_cli.py::test_the_gate_runs_in_e5_mode",
    "tests/contract/storage/test_pipeline_equivalence.py::test_search_and_recall_agree",
    "tests/integration/test_git_status_cache.py::test_cached_status_is_the_full_walk",
    "tests/contract/test_fts_queries_sql.py::test_generated_queries_never_fail_the_lexical_arm",
    "tests/integration/test_eval_locomo_cli.py::test_lexical_smoke_of_the_first_real",
    "tests/unit/test_fusion.py::test_first_in_every_query_arm_stays_first_under_bounded",
    "tests/integration/test_line_walk.py::test_the_set_diff_reports_what_dulwichs_diff",
    "tests/integration/test_store_listing_sql.py::test_pages_chained_by_cursor_equal",
    "tests/contract/test_scope_sql.py::test_archived_only_flips_the_archived_axis_alone",
    "tests/contract/storage/test_indexer_dedup.py::test_every_backend_ends_a_history",
    "tests/integration/test_e5_embedder.py::test_every_chunk_passes_whole",
    "tests/contract/storage/test_retrieval_store_contract.py::test_every_backend_fuses",
    "tests/integration/test_mcp_processes.py::test_two_servers_writing_to_one_store",
    "tests/contract/test_memory_parser_contract.py::test_every_render_is_plain",
)


@pytest.fixture(autouse=True, scope="session")
def _no_helper_outlives_the_session() -> Iterator[None]:
    """Stop every embedding helper started under the session's runtime folder."""
    yield
    for lock in SESSION_RUNTIME.glob("memhtml/embed-*.lock"):
        with contextlib.suppress(OSError, ValueError):
            pid = int(lock.read_text().strip())
            if b"memhtml.app.cli.warm_serve" in Path(f"/proc/{pid}/cmdline").read_bytes():
                os.kill(pid, signal.SIGKILL)
    shutil.rmtree(SESSION_RUNTIME, ignore_errors=True)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Move the suite's longest tests to the front, longest first (see ``LONG_FIRST``)."""

    def rank(item: pytest.Item) -> int:
        return next(
            (i for i, prefix in enumerate(LONG_FIRST) if item.nodeid.startswith(prefix)),
            len(LONG_FIRST),
        )

    items.sort(key=rank)
