"""Reading stored timestamps as SQLite's julianday() reads them."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from memhtml.domain.instants import instant_ms


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1970-01-01", 0),
        ("1970-01-01T00:00:01Z", 1000),
        ("2026-08-30 14:05:09.25+02:00", 1788091509250),
        ("2026-08-30T24:00", 1788134400000),  # hour 24 is the next midnight, as in SQLite
        ("2026-02-31T00:00:00Z", 1772496000000),  # 3 March: SQLite rolls the day over
        ("2026-08-30T14:05:09.9996Z", 1788098709999),  # capped below the next second
        ("2026-08-30T14:05:09.0005Z", 1788098709001),
        ("2026-08-30T14:05 z", 1788098700000),
        ("2026-08-30T14:05:00-02:00", 1788105900000),
    ],
)
def test_instant_reads_what_sqlite_reads(text: str, expected: int) -> None:
    """Readable stamps give the epoch milliseconds SQLite's julianday() gives."""
    assert expected == instant_ms(text)


@pytest.mark.parametrize(
    "text",
    ["", "now", "14:05", "2026-08", "2026-13-01", "2026-01-32", "2026-08-30Z",
     "2026-08-30T23:59:60Z", "2026-08-30T14:05+0200", "2026-08-30T14:05+15:00", " 2026-08-30",
     "2026-08-30t14:05", "2026-08-30T14:05:09.", "２０２６-01-01"],
)  # fmt: skip
def test_unreadable_stamps_read_as_none(text: str) -> None:
    """What julianday() returns NULL for (and forms no writer stores) is None."""
    assert None is instant_ms(text)


@given(
    st.datetimes(min_value=datetime(2, 1, 1), max_value=datetime(9998, 12, 31)),
    st.integers(min_value=-14 * 60, max_value=14 * 60),
)
@example(datetime(2, 1, 1), 0)
@example(datetime(2000, 2, 29, 23, 59, 59, 999_000), -90)
def test_instant_agrees_with_the_calendar(moment: datetime, offset_minutes: int) -> None:
    """For every real calendar instant and zone offset, the reading is datetime's epoch ms."""
    local = moment.replace(microsecond=moment.microsecond // 1000 * 1000)
    sign = "-" if offset_minutes < 0 else "+"
    hours, minutes = divmod(abs(offset_minutes), 60)
    text = f"{local.year:04d}-{local:%m-%dT%H:%M:%S}.{local.microsecond // 1000:03d}"
    text += f"{sign}{hours:02d}:{minutes:02d}"
    utc = local.replace(tzinfo=UTC) - timedelta(minutes=offset_minutes)
    expected = (utc - datetime(1970, 1, 1, tzinfo=UTC)) // timedelta(milliseconds=1)
    assert expected == instant_ms(text)
