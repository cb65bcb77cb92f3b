"""Progress bars: drawn on stderr only at a terminal, proportional, clamped."""

from __future__ import annotations

import io

from hypothesis import example, given
from hypothesis import strategies as st

from memhtml.app.cli.progress import BAR_WIDTH, EMPTY, FILLED, Progress, render_bar


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
