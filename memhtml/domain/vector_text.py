"""What the embedder reads for one chunk: the memory's title, then the chunk's text
(docs/index-schema.md §3.4).

A chunk's own text often leaves out who or what it is about ("Your art's amazing, Caroline"
says nothing of who speaks; the title "Melanie, session 11 turn 17" does). Reading the title
first gives the vector what the full-text arms already get from the title column. Measured on
LoCoMo (BENCHMARKS.md "The title in the vector"): turn MRR +0.019 and R@5 +0.012, supported.
Only the vector's input changes; the chunk text that snippets and the full-text arms show stays
the article's.
"""

from __future__ import annotations

from typing import Final

VECTOR_TEXT_RULE: Final = "title-then-chunk/1"
"""Names this composition. The index records the rule its vectors were made with; a store whose
vectors were made another way drops them and embeds again (``app/indexing``)."""

_ENDS_A_SENTENCE: Final = frozenset(".!?:;")


def vector_text(title: str, chunk: str) -> str:
    """``"<title>. <chunk>"``; the chunk alone when the title is blank.

    The title is trimmed; it keeps its own closing ``.``, ``!``, ``?``, ``:`` or ``;`` instead
    of gaining a second mark. Every chunk of a long memory gets the title, so each vector says
    what the memory is about.
    """
    head = title.strip()
    if not head:
        return chunk
    return f"{head} {chunk}" if head[-1] in _ENDS_A_SENTENCE else f"{head}. {chunk}"
