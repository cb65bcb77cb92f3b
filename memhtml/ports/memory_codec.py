"""The memory codec port: the file-format functions the write path and ``doctor`` need.

A value of functions rather than a Protocol with methods, so the adapter's module-level
functions are the implementation (``memhtml.adapters.html`` in production).
"""

from __future__ import annotations

from collections.abc import Callable

import attrs

from memhtml.domain.model import MemoryDoc, RenderedMemory, RenderInputs


@attrs.frozen(kw_only=True)
class MemoryCodec:
    """Render, parse and surgical head edits of memory files.

    Attributes:
        render: ``RenderInputs`` to canonical file text; raises ``InvalidMemory``/``InvalidInput``.
        render_parsed: ``render`` plus the ``MemoryDoc`` a reader parses from the text, from the
            renderer's one validating parse.
        parse: File bytes to ``MemoryDoc``; raises ``InvalidMemory``.
        set_meta: ``(html, name, value)`` to the html with one scalar meta set.
        add_link: ``(html, rel, target)`` to the html with the link (unchanged if present).
        mark_archived: ``(html, at)`` to the html stamped archived at ``at``.
        drop_link: ``(html, rel, target)`` to the html without that link.
        retarget_link: ``(html, rel, target, new_target)`` to the html with that link
            re-pointed.
    """

    render: Callable[[RenderInputs], str]
    render_parsed: Callable[[RenderInputs], RenderedMemory]
    parse: Callable[[bytes], MemoryDoc]
    set_meta: Callable[[str, str, str], str]
    add_link: Callable[[str, str, str], str]
    mark_archived: Callable[[str, str], str]
    drop_link: Callable[[str, str, str], str]
    retarget_link: Callable[[str, str, str, str], str]
