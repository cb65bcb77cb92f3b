"""Fuzzed memory files through the parser and the indexer (issue 14): indexed, or skipped
with the parser's own reasons, never a crash.

Valid renders are mutated (lines dropped, repeated, swapped, unclosed, misnested, injected
with hostile markup; re-encoded, cut short or padded past the size limit; the contract
suite's generator) and committed by hand, as files arriving through git do. Both indexing
paths, ``index update`` after the commit and a full ``index rebuild``, must hold every file
the parser accepts (or skip it as duplicate content) and skip every file it refuses with
exactly the parser's violation codes. The seed is fixed, so a run is repeatable.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Final

from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

import memhtml
from memhtml.adapters.html import parse_memory
from memhtml.app.use_cases.listing import ListRequest
from memhtml.domain.errors import InvalidMemory
from memhtml.domain.vocabulary import MEMORY_TYPES
from memhtml.ports.git_writer import ChangeSet, FileWrite
from memhtml.ports.indexer import SKIP_DUPLICATE_CONTENT, SkippedFile
from tests.contract.test_memory_parser_contract import mutated_files
from tests.integration.test_cli_commands_store import data, invoke

FUZZ_SEED: Final = 20261201
FILES_PER_STORE: Final = 24


def expected_reasons(raw: bytes) -> frozenset[str] | None:
    """The parser's verdict: ``None`` for a memory, else its violation codes (a report names
    each code once). Any exception other than ``InvalidMemory`` escapes and fails the test."""
    try:
        parse_memory(raw)
    except InvalidMemory as refusal:
        return frozenset(v.code for v in refusal.violations)
    return None


def skipped_by_path(skipped: tuple[SkippedFile, ...]) -> dict[str, frozenset[str]]:
    """A report's skipped files as ``path → reasons``."""
    return {s.path: frozenset(s.reasons) for s in skipped}


@seed(FUZZ_SEED)
@settings(
    max_examples=4,
    deadline=None,
    database=None,
    # Shrinking a list of large files takes minutes; the assertion names the files instead.
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(st.lists(mutated_files(), min_size=FILES_PER_STORE, max_size=FILES_PER_STORE))
def test_mutated_files_are_indexed_or_skipped_with_the_parsers_reasons(
    files: list[bytes | str],
) -> None:
    """update and rebuild agree with the parser file by file: a refused file is skipped with
    its violation codes, an accepted one is listed (or skipped as duplicate content)."""
    with tempfile.TemporaryDirectory() as directory:
        root = Path(directory) / "store"
        data(invoke(["init", "--repo", str(root)]))
        raw = {
            f"areas/fuzz/f{n:02d}.html": f.encode("utf-8") if isinstance(f, str) else f
            for n, f in enumerate(files)
        }
        verdicts = {path: expected_reasons(content) for path, content in raw.items()}
        with memhtml.open(root, environ={}, embedder=False) as store:
            git = store.services.git
            changes = ChangeSet(writes=tuple(FileWrite(path=p, data=d) for p, d in raw.items()))
            store.services.writer.commit(changes, "hand edit\n", expected_head=git.head())
            updated = skipped_by_path(store.index_update().skipped)
            rebuilt = skipped_by_path(store.index_rebuild(embed=False).skipped)
            listing = store.list(
                ListRequest(memory_types=MEMORY_TYPES, include_archived=True, limit=500)
            )
        listed = {f.path for f in listing.files}
    duplicate = frozenset({SKIP_DUPLICATE_CONTENT})
    # Per file: what the parser said, what each pass skipped it for, whether it is listed.
    # An accepted file may be skipped as a duplicate, by either pass; nothing else may differ.
    disagreements = {
        path: (verdict, updated.get(path), rebuilt.get(path), path in listed)
        for path, verdict in verdicts.items()
        if not (
            (verdict is not None and verdict == updated.get(path) == rebuilt.get(path))
            or (verdict is None and updated.get(path) in (None, duplicate)
                and rebuilt.get(path) in (None, duplicate)
                and (path in listed) == (rebuilt.get(path) is None))
        )
    }  # fmt: skip
    assert {} == disagreements
