"""Fixture values to file bytes through the memory codec, each file checked on the way out.

Every file is parsed back: a generated file with a violation or a warning is a generator bug,
and a gate measured over files the indexer half-understood would mean nothing.
"""

from __future__ import annotations

from memhtml.app.eval.discrimination.fixture import Fixture, FixtureFile, FixtureInvalid
from memhtml.domain.errors import InvalidMemory
from memhtml.domain.sidecar import render_sidecar
from memhtml.ports.memory_codec import MemoryCodec

SUPERSEDED_BY_META = "memhtml-superseded-by"


def render_file(file: FixtureFile, codec: MemoryCodec) -> str:
    """The file's text: rendered, then stamped archived and superseded when it is a copy.

    Raises:
        FixtureInvalid: The file does not parse, or parses with warnings.
    """
    html = codec.render(file.inputs)
    if file.archived_at is not None:
        html = codec.mark_archived(html, file.archived_at)
    if file.superseded_by is not None:
        html = codec.set_meta(html, SUPERSEDED_BY_META, "/" + file.superseded_by)
    try:
        doc = codec.parse(html.encode("utf-8"))
    except InvalidMemory as error:
        raise FixtureInvalid(f"generated file {file.path} is invalid: {error}") from error
    if doc.warnings:
        codes = ", ".join(w.code for w in doc.warnings)
        raise FixtureInvalid(f"generated file {file.path} has warnings: {codes}")
    return html


def render_files(fixture: Fixture, codec: MemoryCodec) -> dict[str, bytes]:
    """Every fixture file's bytes, by path.

    Raises:
        FixtureInvalid: A file failed to render cleanly, or two files share a path.
    """
    files: dict[str, bytes] = {}
    for file in fixture.files:
        if file.path in files:
            raise FixtureInvalid(f"two generated files share the path {file.path}")
        files[file.path] = render_file(file, codec).encode("utf-8")
    return files


def sidecar_bytes(fixture: Fixture) -> bytes:
    """The access rows as the committed ``.memhtml/state/access.jsonl``
    (docs/index-schema.md §4)."""
    return render_sidecar(fixture.access_rows).encode("utf-8")
