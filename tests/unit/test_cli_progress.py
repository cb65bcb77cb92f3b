"""Progress bars: drawn on stderr only at a terminal, proportional, clamped; one per phase."""

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
    Progress,
    TerminalProgress,
    render_bar,
)
from memhtml.ports.progress import PHASE_EMBEDDING, PHASE_PARSING


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


def test_terminal_sink_in_a_pipe_draws_nothing() -> None:
    """Off a terminal the sink is silent, whatever the pass reports."""
    stream = io.StringIO()
    with TerminalProgress(stream) as sink:
        sink.start(PHASE_PARSING, 5)
        sink.advance(5)
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
