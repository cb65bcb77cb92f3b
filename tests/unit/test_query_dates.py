"""The dates a query names, read into the ``time`` arm's day windows."""

from __future__ import annotations

import calendar
from datetime import date, timedelta

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from memhtml.domain.query_dates import (
    MAX_WINDOWS,
    WINDOW_SLACK_DAYS,
    DateWindow,
    query_windows,
)

TODAY = date(2023, 10, 23)


def _texts(query: str, today: date = TODAY, slack: int = 0) -> list[str]:
    return [w.as_text() for w in query_windows(query, today=today, slack_days=slack)]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("what happened on 2023-05-08?", ["2023-05-08|2023-05-08"]),
        ("Where was Tim in the week before 16 November 2023?", ["2023-11-16|2023-11-16"]),
        ("the party on the 8th of May, 2023", ["2023-05-08|2023-05-08"]),
        ("Which hobby did James take up on March 16, 2022?", ["2022-03-16|2022-03-16"]),
        ("Which places did Evan visit in July 2023", ["2023-07-01|2023-07-31"]),
        ("plans for Sept. 2021", ["2021-09-01|2021-09-30"]),
        ("what did Nate cook in 2022", ["2022-01-01|2022-12-31"]),
        ("February, 2024 rent", ["2024-02-01|2024-02-29"]),
    ],
)
def test_named_dates_read_as_their_days(query: str, expected: list[str]) -> None:
    """A day, a month or a year the query names is read as exactly those days."""
    assert expected == _texts(query)


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("Which outdoor spot did Joanna visit in May?", ["2023-05-01|2023-05-31"]),
        ("what did we do during October", ["2023-10-01|2023-10-31"]),
        ("the trip in December", ["2022-12-01|2022-12-31"]),
    ],
)
def test_a_month_without_a_year_is_its_latest_occurrence(query: str, expected: list[str]) -> None:
    """``in May`` is the most recent May not after today (this month counts)."""
    assert expected == _texts(query)


@pytest.mark.parametrize(
    "query",
    [
        "may I ask about the lake trip",
        "the meeting last week",
        "2023-13-01",
        "in 0000",
        "room 2023",
        "",
    ],
)
def test_words_that_name_no_date_give_no_window(query: str) -> None:
    """A bare month word, a relative phrase, an impossible ISO date or a bare number: nothing."""
    assert [] == _texts(query)


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("30 February 2023", "2023-02-01|2023-02-28"),
        ("on April 31, 2024", "2024-04-01|2024-04-30"),
        ("2023-02-30", "2023-02-01|2023-02-28"),
    ],
)
def test_an_impossible_day_still_names_its_month(query: str, expected: str) -> None:
    """A day the month does not have is not read, but the month and year it names still are."""
    assert [expected] == _texts(query)


def test_a_day_is_not_also_read_as_its_month() -> None:
    """A span of text counts once: ``8 May 2023`` gives the day, not the day and the month."""
    assert ["2023-05-08|2023-05-08"] == _texts("8 May 2023")


def test_windows_follow_reading_order_once_each() -> None:
    """Several dates keep the query's order; a repeated one appears once."""
    query = "between 2023-06-01 and May 2023, and again 2023-06-01"
    assert ["2023-06-01|2023-06-01", "2023-05-01|2023-05-31"] == _texts(query)


def test_windows_widen_by_the_default_slack() -> None:
    """Each window widens by WINDOW_SLACK_DAYS on both sides when no slack is named."""
    (window,) = query_windows("on 2023-05-08", today=TODAY)
    assert date(2023, 5, 8) - timedelta(days=WINDOW_SLACK_DAYS) == window.start
    assert date(2023, 5, 8) + timedelta(days=WINDOW_SLACK_DAYS) == window.end


def test_widening_clamps_at_the_ends_of_the_calendar() -> None:
    """A window at the first or last representable day widens without overflowing."""
    assert date.min == DateWindow(start=date.min, end=date.min).widened(7).start
    assert date.max == DateWindow(start=date.max, end=date.max).widened(7).end


def test_at_most_max_windows() -> None:
    """A query listing more dates than MAX_WINDOWS keeps its first ones."""
    query = " ".join(f"2020-01-{day:02d}" for day in range(1, MAX_WINDOWS + 3))
    assert MAX_WINDOWS == len(query_windows(query, today=TODAY))


@given(st.dates(min_value=date(1000, 1, 1), max_value=date(9998, 12, 31)), st.integers(0, 30))
@example(date(2024, 2, 29), 0)
def test_every_spelling_of_a_day_reads_back_to_it(day: date, slack: int) -> None:
    """ISO, day-month-year and month-day-year spellings of any real day give its window."""
    month = calendar.month_name[day.month]
    spellings = (
        day.isoformat(),
        f"{day.day} {month} {day.year}",
        f"{month} {day.day}, {day.year}",
        f"{day.day}th of {calendar.month_abbr[day.month]} {day.year}",
    )
    expected = DateWindow(start=day, end=day).widened(slack)
    for text in spellings:
        assert (expected,) == query_windows(f"what happened {text}?", today=TODAY, slack_days=slack)


@given(st.text(max_size=80), st.dates(min_value=date(1, 1, 1)))
@example("in Jan", date(1, 1, 1))
@example("in December", date(1, 6, 1))
def test_any_text_gives_ordered_bounded_windows(query: str, today: date) -> None:
    """Whatever the text: at most MAX_WINDOWS windows, each with start <= end, none repeated."""
    windows = query_windows(query, today=today)
    assert len(windows) <= MAX_WINDOWS
    assert len(set(windows)) == len(windows)
    assert all(w.start <= w.end for w in windows)


@given(st.dates(), st.dates(), st.text(alphabet="0123456789-T:Z", max_size=24))
def test_holds_compares_the_stamps_day_as_text(a: date, b: date, stamp: str) -> None:
    """holds reads a stamp's first ten characters against the ISO bounds, as SQL's substr does."""
    window = DateWindow(start=min(a, b), end=max(a, b))
    expected = window.start.isoformat() <= stamp[:10] <= window.end.isoformat()
    assert expected == window.holds(stamp)
