"""The command table and the result shaping: every docs/cli-contract.md §2 command is registered and
documented, the manifest still loads nothing heavy, and camelCase shaping keeps names and order."""

from __future__ import annotations

import json
import random
import subprocess
import sys

import attrs
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from memhtml.app.cli.commands.shaping import MissingField, camel_case, ordered, plain
from tests.integration.test_cli_commands_store import data, invoke

NOW_COMMANDS = [
    "apply",
    "archive",
    "correct",
    "doctor",
    "index embed",
    "index rebuild",
    "index status",
    "index update",
    "init",
    "link",
    "list",
    "read",
    "recall",
    "reinforce",
    "search",
    "state export",
    "state import",
    "write",
]
# The MCP SDK and its stack are an optional extra: only `memhtml mcp` may import them.
HEAVY_MODULES = (
    "sqlean", "dulwich", "html5lib", "onnxruntime", "numpy",
    "mcp", "pydantic", "starlette", "uvicorn", "anyio",
)  # fmt: skip
WORDS = st.text(alphabet="abcxyz", min_size=1, max_size=5)
SNAKE_NAMES = st.lists(WORDS, min_size=1, max_size=4).map("_".join)


def test_manifest_lists_every_command_with_help_and_a_response_type() -> None:
    """Every command docs/cli-contract.md §2 lists is in the manifest with a summary, flags
    described, a type."""
    manifest = data(invoke(["manifest"]))
    commands = {entry["name"]: entry for entry in manifest["commands"]}
    assert set(NOW_COMMANDS) <= set(commands)
    for name in NOW_COMMANDS:
        entry = commands[name]
        assert entry["summary"], name
        assert entry["responseTypes"], name
        assert all(flag["description"] for flag in entry["flags"]), name


@pytest.mark.parametrize("command", ["search", "recall"])
def test_retrieval_commands_accept_the_ablation_flags(command: str) -> None:
    """search and recall both list docs/decisions.md §12's switches."""
    manifest = data(invoke(["manifest"]))
    entry = next(c for c in manifest["commands"] if c["name"] == command)
    names = {flag["name"] for flag in entry["flags"]}
    expected = {"--arms", "--gate-priors/--no-gate-priors", "--rrf-k", "--weights"}
    assert expected | {"--fts-stopwords/--no-fts-stopwords", "--as-of", "--facet"} <= names


def test_importing_the_cli_and_printing_the_manifest_load_nothing_heavy() -> None:
    """With every command registered, import and manifest still load no driver or model."""
    script = (
        "import json, sys\n"
        "from click.testing import CliRunner\n"
        "from memhtml.app import cli\n"
        "CliRunner().invoke(cli.cli, ['manifest'])\n"
        f"heavy = {HEAVY_MODULES!r}\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in heavy)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert [] == json.loads(done.stdout)


@given(SNAKE_NAMES)
@example("existing_path")
def test_camel_case_only_drops_underscores_and_raises_word_starts(name: str) -> None:
    """camel_case keeps every letter in order, removes the seams and capitalises what followed."""
    words = name.split("_")
    expected = words[0] + "".join(w[0].upper() + w[1:] for w in words[1:])
    assert expected == camel_case(name)


@given(WORDS)
def test_camel_case_leaves_a_single_word_alone(word: str) -> None:
    """A name with no seam is already camelCase."""
    assert word == camel_case(word)


@given(st.lists(SNAKE_NAMES, min_size=1, max_size=6, unique=True), st.randoms())
def test_ordered_follows_the_key_list_not_the_data(keys: list[str], rng: random.Random) -> None:
    """ordered returns exactly the listed keys, in list order, whatever order the data had."""
    shuffled = list(keys)
    rng.shuffle(shuffled)
    source = {key: index for index, key in enumerate(shuffled)}
    source["extra_key_dropped"] = -1
    result = ordered(source, tuple(keys))
    assert (keys, [source[k] for k in keys]) == (list(result), list(result.values()))


def test_ordered_refuses_a_missing_field() -> None:
    """A result lacking a contract field fails loudly instead of printing a shorter object."""
    with pytest.raises(MissingField):
        ordered({"path": "x"}, ("path", "commitSha"))


@attrs.frozen(kw_only=True)
class _Inner:
    memory_type: str
    entity_refs: tuple[str, ...]


@attrs.frozen(kw_only=True)
class _Outer:
    src_path: str
    items: tuple[_Inner, ...]


def test_plain_camelises_nested_values_in_field_order() -> None:
    """Nested attrs values become objects with camelCase keys; tuples become arrays."""
    value = _Outer(src_path="a.html", items=(_Inner(memory_type="semantic", entity_refs=("x:y",)),))
    expected = {"srcPath": "a.html", "items": [{"memoryType": "semantic", "entityRefs": ["x:y"]}]}
    shaped = plain(value)
    assert expected == shaped
    assert isinstance(shaped, dict)
    assert ["srcPath", "items"] == list(shaped)
