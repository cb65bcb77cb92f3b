"""One constraint finding about a memory file: a stable code plus a human detail."""

from __future__ import annotations

import attrs


@attrs.frozen(kw_only=True)
class Finding:
    """A violation or warning produced by the format constraints.

    Attributes:
        code: Stable kebab-case identifier from docs/format.md §10 (``mark-count``, ``link-href``…).
        detail: A sentence a person can act on. Never quotes memory text beyond element
            and attribute names, so it is safe to log.
    """

    code: str
    detail: str
