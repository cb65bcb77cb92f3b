"""Progress on stderr: a proportional, clamped bar per phase at a terminal; one line of counts
per phase elsewhere; quick implicit phases and --quiet print nothing."""

from __future__ import annotations

import io

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from memhtml.app.cli.progress import (
    BAR_WIDTH,
    EMPTY,
    FILLED,
    PHASE_LABELS,
    InvocationProgress,
    Progress,
    TerminalProgress,
    render_bar,
)
from memhtml.ports.progress import PHASE_EMBEDDING, PHASE_INDEXING, PHASE_PARSING


class TerminalBuffer(io.StringIO):
    """A text buffer that says it is a terminal."""

    def isatty(self) -> bool:
        """Always a terminal."""
        return True


def _filled(bar: str) -> int:
    return bar.count(FILLED)


@given(st.integers(-5, 120), st.integers(-5, 100))
@example(0, 0)
@example(7, 3)
def test_bar_is_fixed_width_and_clamped(done: int, total: int) -> None:
    """Always BAR_WIDTH cells; the count shown stays within 0..total."""
    bar = render_bar(done, total)
    cells = bar[1 : bar.index("]")]
    assert BAR_WIDTH == len(cells)
    assert set(cells) <= {FILLED, EMPTY}
    shown_done, shown_total = (int(n) for n in bar.rsplit(" ", 1)[1].split("/"))
    assert 0 <= shown_done <= shown_total == max(total, 0)


@given(st.integers(0, 100), st.integers(1, 100))
def test_bar_fills_monotonically_and_completely(done: int, total: int) -> None:
    """One more unit never empties a cell; the bar is full exactly when the pass is done."""
    assert _filled(render_bar(done, total)) <= _filled(render_bar(done + 1, total))
    assert (done >= total) == (BAR_WIDTH == _filled(render_bar(done, total)))


def test_nothing_to_do_is_a_full_bar() -> None:
    """A pass of zero units is complete."""
    assert f"[{FILLED * BAR_WIDTH}] 0/0" == render_bar(0, 0)


def test_no_terminal_no_bar() -> None:
    """In a pipe the bar is noise: nothing is written."""
    stream = io.StringIO()
    with Progress("embed", 3, stream=stream) as bar:
        bar.advance()
        bar.advance(2)
    assert ("", 3) == (stream.getvalue(), bar.done)


def test_terminal_gets_a_redrawn_bar_and_a_final_newline() -> None:
    """At a terminal each change redraws in place (carriage return); closing ends the line."""
    stream = TerminalBuffer()
    with Progress("embed", 2, stream=stream) as bar:
        bar.advance()
        bar.advance(0)  # unchanged text is not drawn again
        bar.advance()
    expected = "".join(f"\rembed {render_bar(n, 2)}" for n in (0, 1, 2)) + "\n"
    assert expected == stream.getvalue()


def test_terminal_sink_draws_one_bar_per_phase_each_on_its_own_line() -> None:
    """A new phase ends the previous bar's line; finishing ends the last one."""
    stream = TerminalBuffer()
    with TerminalProgress(stream) as sink:
        sink.start(PHASE_PARSING, 2)
        sink.advance()
        sink.advance()
        sink.start(PHASE_EMBEDDING, 1)
        sink.advance()
    parsing = "".join(f"\r{PHASE_LABELS[PHASE_PARSING]} {render_bar(n, 2)}" for n in (0, 1, 2))
    embedding = "".join(f"\r{PHASE_LABELS[PHASE_EMBEDDING]} {render_bar(n, 1)}" for n in (0, 1))
    assert f"{parsing}\n{embedding}\n" == stream.getvalue()


def test_terminal_sink_ignores_units_between_phases_and_ends_a_bar_once() -> None:
    """Units with no phase started draw nothing; finish after finish adds no newline."""
    stream = TerminalBuffer()
    sink = TerminalProgress(stream)
    sink.advance(3)
    sink.start(PHASE_PARSING, 1)
    sink.finish()
    sink.finish()
    sink.advance()
    assert f"\r{PHASE_LABELS[PHASE_PARSING]} {render_bar(0, 1)}\n" == stream.getvalue()


class FakeClock:
    """Monotonic seconds that move only when a test says so."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_in_a_pipe_each_phase_ends_with_one_line_of_counts() -> None:
    """Off a terminal: no bar, one line per phase with counts and seconds, thousands grouped."""
    stream, clock = io.StringIO(), FakeClock()
    with TerminalProgress(stream, clock=clock) as sink:
        sink.start(PHASE_PARSING, 1500)
        sink.advance(1500)
        clock.now += 2.5
        sink.start(PHASE_EMBEDDING, 3)
        sink.advance(2)
    assert (
        f"memhtml: {PHASE_LABELS[PHASE_PARSING]}: 1,500/1,500 in 2.5 s\n"
        f"memhtml: {PHASE_LABELS[PHASE_EMBEDDING]}: 2/3 in 0.0 s\n"
    ) == stream.getvalue()


def test_a_long_phase_in_a_pipe_says_how_far_it_got_every_heartbeat() -> None:
    """A running phase adds a line each time the heartbeat passes, then its closing line."""
    stream, clock = io.StringIO(), FakeClock()
    with TerminalProgress(stream, clock=clock, heartbeat=10.0) as sink:
        sink.start(PHASE_EMBEDDING, 30)
        for _ in range(3):
            clock.now += 6.0
            sink.advance(10)
    label = PHASE_LABELS[PHASE_EMBEDDING]
    assert f"memhtml: {label}: 20/30…\nmemhtml: {label}: 30/30 in 18.0 s\n" == stream.getvalue()


@given(st.floats(0, 0.99), st.integers(0, 50))
def test_a_quick_implicit_phase_stays_silent(seconds: float, units: int) -> None:
    """With min_seconds, a phase shorter than it prints nothing, in a pipe or at a terminal."""
    for stream in (io.StringIO(), TerminalBuffer()):
        clock = FakeClock()
        with TerminalProgress(stream, clock=clock, min_seconds=1.0) as sink:
            sink.start(PHASE_PARSING, units)
            clock.now += seconds
            sink.advance(units)
        assert "" == stream.getvalue()


def test_a_slow_implicit_phase_is_reported() -> None:
    """The rebuild after a lost index outlasts min_seconds: its line is printed."""
    stream, clock = io.StringIO(), FakeClock()
    with TerminalProgress(stream, clock=clock, min_seconds=1.0) as sink:
        sink.start(PHASE_INDEXING, 4)
        clock.now += 1.5
        sink.advance(4)
    assert f"memhtml: {PHASE_LABELS[PHASE_INDEXING]}: 4/4 in 1.5 s\n" == stream.getvalue()


def test_quiet_prints_nothing_anywhere() -> None:
    """--quiet silences bars and lines alike."""
    for stream in (io.StringIO(), TerminalBuffer()):
        with TerminalProgress(stream, quiet=True) as sink:
            sink.start(PHASE_PARSING, 2)
            sink.advance(2)
        assert "" == stream.getvalue()


def test_terminal_sink_ends_its_line_when_the_pass_raises() -> None:
    """Leaving the context on an error still ends the bar's line, so the log starts clean."""
    stream = TerminalBuffer()

    def failing_pass() -> None:
        with TerminalProgress(stream) as sink:
            sink.start(PHASE_EMBEDDING, 4)
            sink.advance()
            raise RuntimeError("model stopped")

    with pytest.raises(RuntimeError):
        failing_pass()
    assert stream.getvalue().endswith(f"{render_bar(1, 4)}\n")


def test_a_held_stores_progress_reports_to_the_command_running_when_a_phase_starts() -> None:
    """The warm helper holds a store across commands: each phase goes to the stream (and
    under the --quiet) of the command running when it started, not the first one's."""
    first, second = io.StringIO(), io.StringIO()
    running: list[TerminalProgress] = [TerminalProgress(first)]
    sink = InvocationProgress(lambda: running[0])
    sink.start(PHASE_PARSING, 2)
    sink.advance(2)
    running[0] = TerminalProgress(second)
    sink.start(PHASE_INDEXING, 3)
    sink.advance(3)
    sink.finish()
    running[0] = TerminalProgress(first, quiet=True)
    sink.start(PHASE_EMBEDDING, 1)
    sink.finish()
    assert first.getvalue().startswith(f"memhtml: {PHASE_LABELS[PHASE_PARSING]}: 2/2 in ")
    assert first.getvalue().count("\n") == 1
    assert second.getvalue().startswith(f"memhtml: {PHASE_LABELS[PHASE_INDEXING]}: 3/3 in ")
    sink.advance(5)  # between phases: ignored
    assert second.getvalue().count("\n") == 1
