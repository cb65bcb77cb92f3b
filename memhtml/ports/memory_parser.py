"""The memory parser port: bytes of one memory file in, a ``MemoryDoc`` out.

The SQLite indexer needs the HTML parser, and adapters never import each other, so the parser
reaches the indexer through this port and the composition root hands it
``memhtml.adapters.html.parse_memory``.
"""

from __future__ import annotations

from typing import Protocol

from memhtml.domain.model import MemoryDoc


class MemoryParser(Protocol):
    """Parses and validates one memory file (docs/format.md §10).

    A callable rather than an object with a ``parse`` method, so the parser function itself is
    the implementation. It must be a module-level function (or another picklable callable)
    when the indexer parses on a process pool; an unpicklable one makes it parse serially.
    """

    def __call__(self, data: bytes) -> MemoryDoc:
        """The parsed file.

        Args:
            data: The file's bytes as git stores them.

        Raises:
            InvalidMemory: With every violation found; the only error a parser raises, so the
                indexer can count the file as skipped and go on.
        """
        ...
