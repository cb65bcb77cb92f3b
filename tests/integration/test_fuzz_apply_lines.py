"""Fuzzed ``apply`` lines (issue 14): every line parses or is refused with its own code.

Random JSON shapes (deep nesting, lone surrogates as ``\\udXXX`` escapes, wrong types, unknown
fields), op-shaped objects with random values, and raw garbage. Phase 1 must turn each line
into an op or refuse it as ``ERR_INVALID_FLAG``/``ERR_MISSING_ARGUMENT``; batches of the lines
that parse then run through the real command (``apply --continue-on-error``) on a real store,
where every op lands, dedups or is refused with a specific code. A traceback or
``ERR_UNKNOWN`` anywhere fails. The seed is fixed, so a run is repeatable.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Final

import pytest
from hypothesis import HealthCheck, example, given, seed, settings
from hypothesis import strategies as st

from memhtml.app.apply_ops import parse_apply_lines
from memhtml.app.cli.failures import describe_error
from tests.integration.test_cli_commands_store import data, envelope, invoke

FUZZ_SEED: Final = 20261201
ANY_CHARACTER: Final = st.characters(codec=None, categories=None, exclude_categories=())
FIELDS: Final = (
    "op", "title", "type", "claim", "body", "article_html", "path", "strict_path", "workspace",
    "tag", "entity", "importance", "confidence", "event_at", "valid_from", "session_id",
    "prompt_id", "turn_uuid", "src", "rel", "dst", "reason", "colour",
)  # fmt: skip
# Text a person could type (no controls, surrogates or unassigned code points), so that
# some writes land and later links and archives find them.
PRINTABLE: Final = st.text(
    st.characters(codec="utf-8", exclude_categories=("Cc", "Cs", "Co", "Cn")),
    min_size=1,
    max_size=40,
)
SCALARS: Final = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=False),
    st.text(ANY_CHARACTER, max_size=40),
    st.sampled_from(
        ["semantic", "episodic", "task", "arc", "supports", "relates_to", "2026-08-30",
         "2026-08-30T14:05:00Z", "areas/inbox/a.html", "../up.html", "/abs.html",
         "<p><mark>x</mark></p>", "<script>x</script>", "\x1b[31m", "person:sasha", "\ud800"]
    ),
)  # fmt: skip
JSON_VALUES: Final = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(FIELDS), inner, max_size=6)
    ),
    max_leaves=12,
)
OP_OBJECTS: Final = st.fixed_dictionaries(
    {"op": st.sampled_from(["write", "link", "archive", "delete"])},
    optional={name: JSON_VALUES for name in FIELDS if name != "op"},
)
# Paths a batch's writes may take and its links and archives may name: some exist by then.
PATHS: Final = (
    "areas/inbox/a.html", "areas/inbox/b.html", "projects/shop/c.html", "resources/d.html",
    "../x.html", "/abs.html", "archive/2026/areas/inbox/a.html", "areas/inbox/e.htm",
    "areas/inbox/%2e%2e.html", "areas/inbox/.hidden.html",
)  # fmt: skip
# Op objects whose values are scalars: deep values never pass phase 1, so a batch meant to
# reach phase 2 draws from these (and stays within hypothesis's budget for one example).
FLAT_OP_OBJECTS: Final = st.fixed_dictionaries(
    {"op": st.sampled_from(["write", "link", "archive"])},
    optional={name: SCALARS for name in FIELDS if name not in ("op", "colour")},
)
WRITE_OBJECTS: Final = st.fixed_dictionaries(
    {
        "op": st.just("write"),
        "title": st.one_of(PRINTABLE.filter(str.strip), st.text(ANY_CHARACTER, max_size=30)),
        "type": st.sampled_from(["semantic", "episodic", "procedural", "task", "fact"]),
        "claim": st.one_of(PRINTABLE, PRINTABLE, st.text(ANY_CHARACTER, max_size=60)),
    },
    optional={
        "tag": st.lists(st.text(max_size=10), max_size=3),
        "entity": st.sampled_from(["person:sasha", "x", "service:a b", ":"]),
        "event_at": st.sampled_from(["2026-08-30", "2026-08-30T14:05:09Z", "yesterday"]),
        "importance": st.integers(min_value=-1, max_value=12),
        "workspace": st.text(max_size=12),
        "path": st.sampled_from(PATHS),
        "strict_path": st.booleans(),
    },
)
LINK_OBJECTS: Final = st.fixed_dictionaries(
    {
        "op": st.just("link"),
        "src": st.sampled_from(PATHS),
        "rel": st.sampled_from(["supports", "relates_to", "caused_by", "supersedes", "blocks"]),
        "dst": st.sampled_from(PATHS),
    }
)
ARCHIVE_OBJECTS: Final = st.fixed_dictionaries(
    {
        "op": st.just("archive"),
        "path": st.sampled_from(PATHS),
        "reason": st.sampled_from(["x", " "]),
    }
)


def _encoded(value: Any) -> str:
    # ensure_ascii writes a lone surrogate as a \udXXX escape, which json.loads turns back
    # into the lone surrogate a caller's JSON can carry.
    return json.dumps(value, ensure_ascii=True)


LINES: Final = st.one_of(
    OP_OBJECTS.map(_encoded),
    WRITE_OBJECTS.map(_encoded),
    JSON_VALUES.map(_encoded),
    st.integers(min_value=1, max_value=5000).map(lambda depth: "[" * depth + "]" * depth),
    st.integers(min_value=1, max_value=20_000).map(lambda depth: '{"op":' * depth),
    st.text(ANY_CHARACTER, max_size=80),
)
REFUSAL_CODES: Final = frozenset({"ERR_INVALID_FLAG", "ERR_MISSING_ARGUMENT"})
# What one op may be refused with in phase 2: its own input, the format, the tree.
OP_CODES: Final = frozenset(
    {
        "ERR_INVALID_FLAG",
        "ERR_MISSING_ARGUMENT",
        "ERR_INVALID_MEMORY",
        "ERR_PATH_NOT_FOUND",
        "ERR_WRITE_CONFLICT",
        "ERR_DUPLICATE_CONTENT",
    }
)


@seed(FUZZ_SEED)
@settings(max_examples=300, deadline=None, database=None)
@given(LINES)
@example("[" * 100_000)
@example('{"op": "write", "title": "\\ud800", "type": "semantic", "claim": "x"}')
def test_a_fuzzed_line_parses_or_is_refused_with_a_usage_code(line: str) -> None:
    """Phase 1 returns the op or refuses the line with ERR_INVALID_FLAG or
    ERR_MISSING_ARGUMENT, naming it; never another exception."""
    try:
        parse_apply_lines(["", line])
    except Exception as error:
        failure = describe_error(error)
        assert failure.code in REFUSAL_CODES, (failure.code, failure.message)
        assert failure.message.startswith("line 2: ")


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One store every batch lands in, so later batches meet earlier ones' files."""
    store = tmp_path_factory.mktemp("fuzz") / "store"
    data(invoke(["init", "--repo", str(store)]))
    return store


def _parses(line: str) -> bool:
    try:
        parse_apply_lines([line])
    except Exception:
        return False
    return True


@seed(FUZZ_SEED)
@settings(
    max_examples=6,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    st.lists(
        st.one_of(WRITE_OBJECTS, LINK_OBJECTS, ARCHIVE_OBJECTS, FLAT_OP_OBJECTS).map(_encoded),
        min_size=20,
        max_size=20,
    )
)
def test_fuzzed_batches_run_through_the_command_op_by_op(root: Path, lines: list[str]) -> None:
    """The lines that parse, as one `apply --continue-on-error`: exit 0, one result per op,
    each landed, deduped or refused with a specific code."""
    batch = [line for line in lines if _parses(line)]
    result = invoke(["--repo", str(root), "apply", "--continue-on-error"], stdin="\n".join(batch))
    assert 0 == result.exit_code, result.stdout + result.stderr
    results = envelope(result)["data"]["results"]
    refused = {r["code"] for r in results if not r["ok"]}
    assert len(batch) == len(results)
    assert set() == refused - OP_CODES, [r["error"] for r in results if r["code"] not in OP_CODES]
