"""Tracked files status read and found clean although the index's stat data could not say so.

The index vouches for a file only while the file's mtime, ctime and size are the ones it
recorded. After a copy of the store, a ``touch``, a ``chmod`` or a checkout by a tool that left
the index alone, every such file would be read and hashed on every status, and status never
rewrites ``.git/index``. So status remembers, in its cache, the stat data of each file it read
and found equal to its blob, and trusts that record while ``lstat`` still gives the same data
for the same blob. A record is kept only when it cannot be racy: both times strictly before
the filesystem's time read before the file was, since a write in the same tick as those
times could leave them unchanged.
"""

from __future__ import annotations

Verified = tuple[int, int, int, bytes, int]
"""(mtime, ctime, size) as ``lstat`` gave them before the read, the blob id (hex), and the
filesystem time read before the read."""


def verified_record(seen: tuple[int, int, int], sha: bytes, clock: int) -> Verified | None:
    """The record of a file read and found equal to blob ``sha``, or ``None`` when racy.

    ``seen`` is its stat data taken before the read; ``clock`` the filesystem's time taken
    before the read too. Any write from ``clock`` on stamps a time at or after it, so when
    both of ``seen``'s times are before it, a later ``lstat`` that still reads ``seen``
    proves the bytes are the ones hashed.
    """
    mtime, ctime, size = seen
    if mtime >= clock or ctime >= clock:
        return None
    return (mtime, ctime, size, sha, clock)


def read_record(fields: object) -> Verified:
    """One record as the cache file holds it.

    Raises:
        ValueError: The fields are not a record.
    """
    if not isinstance(fields, tuple) or len(fields) != 5:
        raise ValueError("not a verified record")
    mtime, ctime, size, sha, clock = fields
    numbers = (mtime, ctime, size, clock)
    if not isinstance(sha, bytes) or not all(isinstance(n, int) for n in numbers):
        raise ValueError("not a verified record")
    return (mtime, ctime, size, sha, clock)
