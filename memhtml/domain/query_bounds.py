"""How much work one query may ask for, and the text every arm reads (docs/ranking.md §11).

A query is prose an agent typed or pasted, so it is bounded before anything reads it: at most
:data:`MAX_QUERY_CHARS` code points (a longer one is refused, never cut, since a silently cut
question gets answers to a different question), and with every lone surrogate replaced by
U+FFFD. Python text taken from argv (``surrogateescape``) or from a JSON ``\\udXXX`` escape can
hold one, and UTF-8 cannot: the embedder's tokenizer refuses the whole string and the vector
arm is lost for a character no one meant.
"""

from __future__ import annotations

import re
from typing import Final

from memhtml.domain.errors import InvalidInput

MAX_QUERY_CHARS: Final = 4096
"""The longest query, in code points: ten times a long paragraph. At this length a warm search
over 10,000 memories costs about what a short one does, plus the embedding (BENCHMARKS.md)."""

REPLACEMENT_CHARACTER: Final = "\ufffd"

# U+D800–U+DFFF: the only code points a Python str can hold that UTF-8 cannot encode. A str
# never holds a well-formed pair (decoding joins one), so each one found here stands alone.
_SURROGATE: Final = re.compile("[\ud800-\udfff]")


def encodable(text: str) -> str:
    """``text`` with each lone surrogate replaced by U+FFFD, so UTF-8 can encode all of it.

    The length in code points is unchanged, and text without a surrogate is returned as is.
    """
    return _SURROGATE.sub(REPLACEMENT_CHARACTER, text)


def checked_query(query: str) -> str:
    """``query`` as every arm reads it: within the length limit, UTF-8-encodable.

    Raises:
        InvalidInput: ``query`` is longer than :data:`MAX_QUERY_CHARS`. The message names the
            limit and the length, never the text.
    """
    if len(query) > MAX_QUERY_CHARS:
        raise InvalidInput(
            f"the query is {len(query):,} characters; the limit is {MAX_QUERY_CHARS:,}. "
            "Ask for the one thing you need, or split the text into several queries"
        )
    return encodable(query)
