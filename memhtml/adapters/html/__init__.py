"""The memory file format: parse, validate, hash, render and edit heads.

``parse_memory`` turns a file into a ``MemoryDoc`` or raises ``InvalidMemory`` with every
violation (lexbor for a plain file, html5lib otherwise); ``parse_memory_reference`` does the
same with html5lib for every file; ``render_memory`` writes the canonical file for
``RenderInputs``; ``set_meta``, ``add_link``, ``retarget_link``, ``drop_link`` and
``mark_archived`` edit the head of an existing file one line at a time; ``content_hash_of``
hashes an article (docs/format.md §7).
"""

from __future__ import annotations

from memhtml.adapters.html.content_hash import content_hash_of
from memhtml.adapters.html.head_edit import (
    add_link,
    drop_link,
    mark_archived,
    retarget_link,
    set_meta,
)
from memhtml.adapters.html.parser import parse_memory, parse_memory_reference
from memhtml.adapters.html.renderer import format_confidence, render_memory
from memhtml.adapters.html.tree import (
    MAX_ATTRIBUTES_PER_ELEMENT,
    MAX_ELEMENTS,
    MAX_FILE_BYTES,
    MAX_NESTING_DEPTH,
)

__all__ = [
    "MAX_ATTRIBUTES_PER_ELEMENT",
    "MAX_ELEMENTS",
    "MAX_FILE_BYTES",
    "MAX_NESTING_DEPTH",
    "add_link",
    "content_hash_of",
    "drop_link",
    "format_confidence",
    "mark_archived",
    "parse_memory",
    "parse_memory_reference",
    "render_memory",
    "retarget_link",
    "set_meta",
]
