"""Embedding settings from the environment: defaults, aliases, and one clear error per bad value."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from memhtml.app.bootstrap.config import (
    ENV_AWS_REGION,
    ENV_EMBED,
    ENV_EMBED_DIM,
    ENV_EMBED_MODEL,
    ENV_EMBED_MODEL_DIR,
    ENV_EMBED_THREADS,
    ENV_VECTOR_COVERAGE_FLOOR,
    MAX_EMBED_THREADS,
    EmbedSettings,
    read_embed_settings,
)
from memhtml.domain.errors import InvalidInput


def test_defaults_are_the_local_model() -> None:
    """No variables: local MiniLM, default threads, floor 0.95, us-east-1 for Bedrock."""
    expected = EmbedSettings(
        backend="local",
        model_id="all-MiniLM-L6-v2-int8",
        model_dir=None,
        dimensions=None,
        region="us-east-1",
        threads=None,
        vector_coverage_floor=0.95,
    )
    assert expected == read_embed_settings({})


@pytest.mark.parametrize(
    ("raw", "backend"),
    [
        ("local", "local"),
        ("on", "local"),
        (" LOCAL ", "local"),
        ("bedrock", "bedrock"),
        ("e5", "e5"),
        (" E5", "e5"),
        ("off", "off"),
        ("Off", "off"),
        ("", "local"),
    ],
)
def test_backend_spellings(raw: str, backend: str) -> None:
    """Case and surrounding space do not matter; `on` means local; empty means unset."""
    assert backend == read_embed_settings({ENV_EMBED: raw}).backend


def test_off_is_lexical_only_and_keeps_the_default_model() -> None:
    """`off` writes no vectors but names the default model, so off ↔ local needs no rebuild."""
    settings = read_embed_settings({ENV_EMBED: "off", ENV_EMBED_THREADS: "junk"})
    assert (False, "all-MiniLM-L6-v2-int8") == (settings.writes_vectors, settings.model_id)


def test_bedrock_settings() -> None:
    """Bedrock reads its model, size and region; the default model is Titan v2."""
    env = {
        ENV_EMBED: "bedrock",
        ENV_EMBED_MODEL: "amazon.titan-embed-text-v2:0",
        ENV_EMBED_DIM: "512",
        ENV_AWS_REGION: "eu-central-1",
    }
    settings = read_embed_settings(env)
    assert ("amazon.titan-embed-text-v2:0", 512, "eu-central-1", True) == (
        settings.model_id,
        settings.dimensions,
        settings.region,
        settings.writes_vectors,
    )
    assert "amazon.titan-embed-text-v2:0" == read_embed_settings({ENV_EMBED: "bedrock"}).model_id


def test_local_settings(tmp_path: Path) -> None:
    """Local reads a model directory and a thread count."""
    env = {ENV_EMBED_MODEL_DIR: str(tmp_path), ENV_EMBED_THREADS: "3"}
    settings = read_embed_settings(env)
    assert (tmp_path, 3) == (settings.model_dir, settings.threads)


def test_e5_settings() -> None:
    """e5 reads a thread count, names its 4-bit model, writes vectors, ignores a model dir."""
    env = {ENV_EMBED: "e5", ENV_EMBED_THREADS: "1", ENV_EMBED_MODEL_DIR: "/no/such/dir"}
    settings = read_embed_settings(env)
    assert ("e5", "multilingual-e5-small-q4", 1, None, True) == (
        settings.backend,
        settings.model_id,
        settings.threads,
        settings.model_dir,
        settings.writes_vectors,
    )


def test_e5_accepts_its_own_model_id_only() -> None:
    """Naming e5's model is allowed; naming MiniLM (or anything else) under e5 is refused."""
    own = read_embed_settings({ENV_EMBED: "e5", ENV_EMBED_MODEL: "multilingual-e5-small-q4"})
    assert "multilingual-e5-small-q4" == own.model_id
    with pytest.raises(InvalidInput, match=f"^{ENV_EMBED_MODEL}="):
        read_embed_settings({ENV_EMBED: "e5", ENV_EMBED_MODEL: "all-MiniLM-L6-v2-int8"})


def test_other_backends_settings_are_ignored() -> None:
    """Local ignores Bedrock's variables, so flipping MEMHTML_EMBED alone switches backends."""
    env = {ENV_EMBED_DIM: "300", ENV_AWS_REGION: "nowhere"}
    assert EmbedSettings() == read_embed_settings(env)
    bedrock = {ENV_EMBED: "bedrock", ENV_EMBED_THREADS: "0", ENV_EMBED_MODEL_DIR: "/nope"}
    assert (None, None) == (
        read_embed_settings(bedrock).threads,
        read_embed_settings(bedrock).model_dir,
    )


@pytest.mark.parametrize(
    ("env", "variable"),
    [
        ({ENV_EMBED: "onnx"}, ENV_EMBED),
        ({ENV_VECTOR_COVERAGE_FLOOR: "1.5"}, ENV_VECTOR_COVERAGE_FLOOR),
        ({ENV_VECTOR_COVERAGE_FLOOR: "nan"}, ENV_VECTOR_COVERAGE_FLOOR),
        ({ENV_VECTOR_COVERAGE_FLOOR: "high"}, ENV_VECTOR_COVERAGE_FLOOR),
        ({ENV_EMBED_THREADS: "0"}, ENV_EMBED_THREADS),
        ({ENV_EMBED_THREADS: "two"}, ENV_EMBED_THREADS),
        ({ENV_EMBED_THREADS: str(MAX_EMBED_THREADS + 1)}, ENV_EMBED_THREADS),
        ({ENV_EMBED_MODEL: "bge-small"}, ENV_EMBED_MODEL),
        ({ENV_EMBED_MODEL_DIR: "/no/such/dir"}, ENV_EMBED_MODEL_DIR),
        ({ENV_EMBED: "bedrock", ENV_EMBED_MODEL: "gpt-4"}, ENV_EMBED_MODEL),
        ({ENV_EMBED: "bedrock", ENV_EMBED_DIM: "384"}, ENV_EMBED_DIM),
        (
            {
                ENV_EMBED: "bedrock",
                ENV_EMBED_MODEL: "cohere.embed-english-v3",
                ENV_EMBED_DIM: "512",
            },
            ENV_EMBED_DIM,
        ),
        ({ENV_EMBED: "bedrock", ENV_AWS_REGION: "Frankfurt"}, ENV_AWS_REGION),
        ({ENV_EMBED: "e5", ENV_EMBED_THREADS: "0"}, ENV_EMBED_THREADS),
        ({ENV_EMBED: "e5", ENV_EMBED_MODEL: "e5-large"}, ENV_EMBED_MODEL),
    ],
)
def test_bad_values_name_their_variable(env: dict[str, str], variable: str) -> None:
    """Each malformed value raises InvalidInput whose message starts with the variable's name."""
    with pytest.raises(InvalidInput) as caught:
        read_embed_settings(env)
    assert f"{variable}=" == str(caught.value)[: len(variable) + 1]


@given(st.floats(0, 1))
@example(0.0)
@example(1.0)
def test_any_floor_in_range_round_trips(floor: float) -> None:
    """Every number from 0 to 1 is accepted exactly as written."""
    settings = read_embed_settings({ENV_VECTOR_COVERAGE_FLOOR: repr(floor)})
    assert floor == settings.vector_coverage_floor


@given(st.text(max_size=12))
@example("on")
@example("LoCaL")
@example("e5")
def test_backend_is_one_of_four_or_refused(raw: str) -> None:
    """Any string parses to local/e5/bedrock/off or raises InvalidInput naming MEMHTML_EMBED."""
    word = raw.strip().lower()
    expected = {"": "local", "on": "local"}.get(word, word)
    env = {ENV_EMBED: raw, ENV_EMBED_MODEL_DIR: ""}
    if expected in {"local", "e5", "bedrock", "off"}:
        assert expected == read_embed_settings(env).backend
    else:
        with pytest.raises(InvalidInput, match=f"^{ENV_EMBED}="):
            read_embed_settings(env)


@given(st.integers(-5, MAX_EMBED_THREADS + 5))
def test_threads_accept_exactly_the_allowed_range(threads: int) -> None:
    """1 … MAX_EMBED_THREADS parse to themselves; anything else is refused."""
    env = {ENV_EMBED_THREADS: str(threads)}
    if 1 <= threads <= MAX_EMBED_THREADS:
        assert threads == read_embed_settings(env).threads
    else:
        with pytest.raises(InvalidInput, match=ENV_EMBED_THREADS):
            read_embed_settings(env)


def test_unrelated_variables_are_not_read() -> None:
    """Only MEMHTML_* variables matter: a stray AWS or PATH value changes nothing."""
    assert EmbedSettings() == read_embed_settings({"PATH": "/bin", "AWS_REGION": "x"})
