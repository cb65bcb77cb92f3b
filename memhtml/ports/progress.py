"""The progress port: how a long pass tells its caller how far it got.

Indexing and ``apply`` run for seconds to minutes on a large store. The passes announce each
phase with its total and report units as they land; the caller decides what that becomes (a
bar on a terminal, nothing in a pipe, a list in a test). The default sink does nothing, so a
caller that does not care passes nothing.
"""

from __future__ import annotations

from typing import Final, Protocol

PHASE_PARSING: Final = "parsing"
"""Memory files read and parsed; units are files."""
PHASE_INDEXING: Final = "indexing"
"""A rebuild's memory files parsed and written into the index, both at once (a file that is
skipped counts too); units are files."""
PHASE_EMBEDDING: Final = "embedding"
"""Chunks embedded and stored; units are chunks."""
PHASE_APPLYING: Final = "applying"
"""``apply`` ops staged on the batch's tree; units are ops."""
PHASE_RETOKENIZING: Final = "retokenizing"
"""The full-text index rebuilt under the configured tokenizer; one unit."""
PHASE_REKEYING: Final = "rekeying"
"""Stored frame keys derived again from the stored gists (a new derivation); units are rows."""
PHASE_SCANNING: Final = "scanning"
"""Agent transcripts read by ``trace scan``; units are bytes."""


class ProgressSink(Protocol):
    """Receives one pass's phases in order: ``start``, some ``advance`` calls, ``finish``.

    A phase with nothing to do is not announced. A phase may start again before it finished
    (a parse that falls back from the process pool to serial starts over, and a mutation
    that lost a commit race re-runs its ops): the new ``start`` replaces the old count. Units
    never exceed the announced total. A sink must not raise: progress is advice, and a
    failing bar must not fail a rebuild.
    """

    def start(self, phase: str, total: int) -> None:
        """Begin ``phase`` (one of the ``PHASE_*`` names), which will do ``total`` units."""
        ...

    def advance(self, units: int = 1) -> None:
        """``units`` more of the current phase are done."""
        ...

    def finish(self) -> None:
        """The current phase is over (all units done, or the pass stopped early)."""
        ...


class NoProgress:
    """The sink that ignores everything: the default of every pass."""

    def start(self, phase: str, total: int) -> None:
        """Ignore the phase."""

    def advance(self, units: int = 1) -> None:
        """Ignore the units."""

    def finish(self) -> None:
        """Ignore the end."""


NO_PROGRESS: Final[ProgressSink] = NoProgress()
