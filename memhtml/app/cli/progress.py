"""Progress of long passes (rebuild, embed, apply) on stderr: a bar at a terminal, lines in a
pipe or a log file.

In a pipe a bar is noise made of carriage returns, so there each phase ends with one line of
counts and time instead (``memhtml: parsing files: 1,204/1,204 in 3.1 s``), and a phase that
runs long also says how far it got every ``HEARTBEAT_SECONDS``. ``Progress`` is one bar;
``TerminalProgress`` is the ``ProgressSink`` the commands hand to the indexer and to ``apply``.
A sink with ``min_seconds`` reports only phases that run at least that long: the implicit
index passes of every command (a rebuild after a lost index) get one, so a search that
re-projects one edited file stays silent. ``--quiet`` silences all of it.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from types import TracebackType
from typing import Final, TextIO

from memhtml.ports.progress import (
    PHASE_APPLYING,
    PHASE_EMBEDDING,
    PHASE_INDEXING,
    PHASE_PARSING,
    PHASE_SCANNING,
)

BAR_WIDTH: Final = 30
FILLED: Final = "#"
EMPTY: Final = "-"
PHASE_LABELS: Final = {
    PHASE_PARSING: "parsing files",
    PHASE_INDEXING: "indexing files",
    PHASE_EMBEDDING: "embedding chunks",
    PHASE_APPLYING: "applying ops",
    PHASE_SCANNING: "scanning transcripts (bytes)",
}
LINE_PREFIX: Final = "memhtml: "
HEARTBEAT_SECONDS: Final = 10.0
IMPLICIT_MIN_SECONDS: Final = 1.0
"""Implicit passes (freshness before a read, the update after a write) report only phases
that took at least this long: the rebuild after a lost index, not a one-file re-projection."""


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


def phase_line(label: str, done: int, total: int, seconds: float | None) -> str:
    """One line of a phase's counts: ``parsing files: 1,204/1,204 in 3.1 s`` when it ended
    (``seconds`` given), ``parsing files: 960/1,204…`` while it runs."""
    counts = f"{LINE_PREFIX}{label}: {max(done, 0):,}/{max(total, 0):,}"
    return f"{counts} in {seconds:.1f} s\n" if seconds is not None else f"{counts}…\n"


class TerminalProgress:
    """A ``ProgressSink`` for stderr: one bar per phase at a terminal, lines in a pipe.

    At a terminal a new phase ends the previous bar's line first, so phases stack one per line.
    Elsewhere each phase ends with one ``phase_line``, and a long phase adds a line every
    ``heartbeat`` seconds. Use as a context manager so a pass that raises still ends its line
    before the failure is logged.

    Args:
        stream: Where to write; ``sys.stderr`` (as it is when the sink is made) when omitted.
        quiet: Write nothing at all (``--quiet``).
        min_seconds: Report only phases that run at least this long (0: every phase).
        heartbeat: Seconds between lines of a running phase off a terminal.
        clock: Monotonic seconds; tests pass a fake.
    """

    def __init__(
        self,
        stream: TextIO | None = None,
        *,
        quiet: bool = False,
        min_seconds: float = 0.0,
        heartbeat: float = HEARTBEAT_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._stream = sys.stderr if stream is None else stream
        self._quiet = quiet
        self._min_seconds = min_seconds
        self._heartbeat = heartbeat
        self._clock = clock
        self._tty = _is_terminal(self._stream)
        self._bar: Progress | None = None
        self._phase: tuple[str, int] | None = None
        self._done = 0
        self._started = 0.0
        self._last_line = 0.0
        self._told = False

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
        """End any phase in progress and begin ``phase``."""
        self.finish()
        if self._quiet:
            return
        self._phase = (PHASE_LABELS.get(phase, phase), total)
        self._done = 0
        self._started = self._last_line = self._clock()
        self._told = False
        self._tick()

    def advance(self, units: int = 1) -> None:
        """Count ``units`` more of the current phase; ignored between phases."""
        if self._phase is None:
            return
        self._done += units
        self._tick()

    def finish(self) -> None:
        """End the current phase: the bar's line at a terminal, the phase's line elsewhere."""
        phase, self._phase = self._phase, None
        if self._bar is not None:
            self._bar.close()
            self._bar = None
        if phase is None or self._tty:
            return
        seconds = self._clock() - self._started
        if self._told or seconds >= self._min_seconds:
            label, total = phase
            self._write(phase_line(label, self._done, total, seconds))

    def _tick(self) -> None:
        if self._phase is None:
            return
        label, total = self._phase
        now = self._clock()
        if now - self._started < self._min_seconds:
            return
        if self._tty:
            if self._bar is None:
                self._bar = Progress(label, total, stream=self._stream)
            self._bar.advance(self._done - self._bar.done)
        elif now - self._last_line >= self._heartbeat:
            self._last_line = now
            self._told = True
            self._write(phase_line(label, self._done, total, None))

    def _write(self, text: str) -> None:
        try:
            self._stream.write(text)
            self._stream.flush()
        except (OSError, ValueError):  # a closed stderr: progress is advice, never a failure
            self._quiet = True


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def command_progress(*, implicit: bool = False) -> TerminalProgress:
    """The running invocation's progress sink on stderr, silent under ``--quiet``.

    Args:
        implicit: For the index passes a command runs on its own (freshness, the rebuild after
            a lost index): report only phases of at least ``IMPLICIT_MIN_SECONDS``.
    """
    from memhtml.app.cli.state import current_state

    return TerminalProgress(
        quiet=current_state().options.quiet,
        min_seconds=IMPLICIT_MIN_SECONDS if implicit else 0.0,
    )


class InvocationProgress:
    """A ``ProgressSink`` for a store that outlives one command (the warm helper's held
    stores): each phase reports to the invocation running when it starts, on that invocation's
    stderr and under its ``--quiet``, as ``command_progress(implicit=True)`` would.

    Args:
        sink: Makes the running invocation's sink; ``command_progress(implicit=True)`` when
            omitted (tests pass their own).
    """

    def __init__(self, sink: Callable[[], TerminalProgress] | None = None) -> None:
        self._sink = sink if sink is not None else _implicit_progress
        self._current: TerminalProgress | None = None

    def start(self, phase: str, total: int) -> None:
        """Begin ``phase`` on the running invocation's stderr."""
        self.finish()
        self._current = self._sink()
        self._current.start(phase, total)

    def advance(self, units: int = 1) -> None:
        """Count ``units`` more of the current phase; ignored between phases."""
        if self._current is not None:
            self._current.advance(units)

    def finish(self) -> None:
        """End the current phase."""
        current, self._current = self._current, None
        if current is not None:
            current.finish()


def _implicit_progress() -> TerminalProgress:
    return command_progress(implicit=True)
