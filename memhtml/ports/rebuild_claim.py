"""The rebuild claim port: who is rebuilding the index right now.

A rebuild clears the watermark first and records the commit last, so a NULL watermark means
"a rebuild is running, or one died". Only a claim held for the rebuild's whole length tells the
two apart: an update that finds a NULL watermark and gets the claim knows the rebuild died and
resumes it; one that does not get it knows another process is rebuilding.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Protocol


class RebuildClaim(Protocol):
    """A claim on rebuilding one index, released when its holder ends (or dies)."""

    def held(self, *, wait: bool) -> AbstractContextManager[bool]:
        """Hold the claim for the block; the block gets False (holding nothing) when ``wait``
        is off and another process holds it. Nested holds by one holder reuse the outer one.

        Raises:
            StorageFailure: The claim cannot be taken for a reason other than its holder.
        """
        ...

    def busy(self) -> bool:
        """Whether another process holds the claim now (a probe; holds nothing after)."""
        ...
