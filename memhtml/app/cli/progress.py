"""Progress bars for long passes (rebuild, embed, apply), drawn on stderr only at a terminal.

In a pipe or a log file a bar is noise made of carriage returns, so nothing is drawn there.
``Progress`` is one bar; ``TerminalProgress`` is the ``ProgressSink`` the commands hand to the
indexer and to ``apply``, drawing one bar per phase the pass announces.
"""

from __future__ import annotations

import sys
from types import TracebackType
from typing import Final, TextIO

from memhtml.ports.progress import (
    PHASE_APPLYING,
    PHASE_EMBEDDING,
    PHASE_PARSING,
    PHASE_PROJECTING,
    PHASE_SCANNING,
)

BAR_WIDTH: Final = 30
FILLED: Final = "#"
EMPTY: Final = "-"
PHASE_LABELS: Final = {
    PHASE_PARSING: "parsing files",
    PHASE_PROJECTING: "projecting files",
    PHASE_EMBEDDING: "embedding chunks",
    PHASE_APPLYING: "applying ops",
    PHASE_SCANNING: "scanning transcripts (bytes)",
}


def render_bar(done: int, total: int, width: int = BAR_WIDTH) -> str:
    """``[####------] 4/10``: ``width`` cells, filled in proportion, ``done`` clamped to 0..total.

    A pass with nothing to do (``total`` ≤ 0) shows a full bar: it is complete.
    """
    total = max(total, 0)
    done = min(max(done, 0), total)
    filled = width if total == 0 else done * width // total
    return f"[{FILLED * filled}{EMPTY * (width - filled)}] {done}/{total}"


class Progress:
    """A bar for one pass; use as a context manager and call ``advance`` as work lands.

    Args:
        label: What the pass does, shown before the bar.
        total: How many units the pass will do.
        stream: Where to draw; ``sys.stderr`` when omitted. Nothing is drawn unless it is a
            terminal.
    """

    def __init__(self, label: str, total: int, stream: TextIO | None = None) -> None:
        self._label = label
        self._total = total
        self._stream = sys.stderr if stream is None else stream
        self._done = 0
        self._drawn: str | None = None
        self._active = self._stream.isatty()

    @property
    def done(self) -> int:
        """Units completed so far."""
        return self._done

    def __enter__(self) -> Progress:
        self._draw()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def advance(self, units: int = 1) -> None:
        """Record ``units`` more done and redraw when the bar's text changed."""
        self._done += units
        self._draw()

    def close(self) -> None:
        """End the bar's line so the next stderr output starts clean."""
        if self._active and self._drawn is not None:
            self._stream.write("\n")
            self._stream.flush()
            self._drawn = None
        self._active = False

    def _draw(self) -> None:
        if not self._active:
            return
        text = f"\r{self._label} {render_bar(self._done, self._total)}"
        # Redrawing identical text would flood a slow terminal on passes of many small units.
        if text != self._drawn:
            self._stream.write(text)
            self._stream.flush()
            self._drawn = text


class TerminalProgress:
    """A ``ProgressSink`` that draws each announced phase as its own bar on one stream.

    A new phase ends the previous bar's line first, so phases stack one per line. Whether
    anything is drawn is ``Progress``'s decision (a terminal only). Use as a context manager so
    a pass that raises still ends its line before the failure is logged.

    Args:
        stream: Where to draw; ``sys.stderr`` (as it is when the sink is made) when omitted.
    """

    def __init__(self, stream: TextIO | None = None) -> None:
        self._stream = sys.stderr if stream is None else stream
        self._bar: Progress | None = None

    def __enter__(self) -> TerminalProgress:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.finish()

    def start(self, phase: str, total: int) -> None:
        """End any bar in progress and draw an empty one for ``phase``."""
        self.finish()
        self._bar = Progress(PHASE_LABELS.get(phase, phase), total, stream=self._stream)
        self._bar.advance(0)

    def advance(self, units: int = 1) -> None:
        """Move the current bar; ignored between phases."""
        if self._bar is not None:
            self._bar.advance(units)

    def finish(self) -> None:
        """End the current bar's line, if a bar is drawn."""
        if self._bar is not None:
            self._bar.close()
            self._bar = None
