"""The docs/format.md §5 datetime rule and the UTC stamp the writer uses (docs/decisions.md §2)."""

from __future__ import annotations

import calendar
from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from memhtml.domain.datetimes import event_label, is_valid_datetime, utc_stamp
from memhtml.domain.errors import InvalidInput
from tests.strategies import format_datetime_like, format_datetimes

ACCEPTED = [
    "2026-08-30",
    "2026-08-30T14:05",
    "2026-08-30 14:05:09.25+02:00",
    "2026-08-30T23:59:60Z",
]
REFUSED = [
    "2026-08",
    "2026-8-30",
    "2026-02-30",
    "2026-08-30T24:00",
    "2026-08-30Z",
    "14:05",
    "2026-08-30t14:05",
    "2026-08-30T14:05z",
]


@pytest.mark.parametrize("value", ACCEPTED)
def test_spec_examples_are_accepted(value: str) -> None:
    """Every "Accepted" example of docs/format.md §5 passes."""
    assert is_valid_datetime(value) is True


@pytest.mark.parametrize("value", REFUSED)
def test_spec_refusals_are_refused(value: str) -> None:
    """Every "Refused" example of docs/format.md §5 fails, lowercase t and z included."""
    assert is_valid_datetime(value) is False


@pytest.mark.parametrize(
    "value",
    [
        "2026-08-30T14:05:61",
        "2026-08-30T14:60",
        "2026-08-30T14:05:09.",
        "2026-08-30T14:05+24:00",
        "2026-08-30T14:05+02:60",
        "2026-08-30 ",
        " 2026-08-30",
        "2026-08-30\n",
        "２０２６-08-30",
        "٢٠٢٦-08-30",
        "2026-00-10",
        "2026-13-10",
        "2026-01-00",
        "2100-02-29",
        "",
    ],
)
def test_other_malformed_values_are_refused(value: str) -> None:
    """Out-of-range parts, padding, a trailing newline and non-ASCII digits all fail."""
    assert is_valid_datetime(value) is False


@pytest.mark.parametrize(
    "value", ["2024-02-29", "2000-02-29", "0000-02-29", "2026-08-30T14:05+0530"]
)
def test_leap_days_and_compact_zones_are_accepted(value: str) -> None:
    """Leap days exist in leap years (2000 and year 0 included); `±hhmm` zones are allowed."""
    assert is_valid_datetime(value) is True


@given(format_datetimes())
def test_every_shape_the_rule_admits_is_accepted(value: str) -> None:
    """Any date with optional time, seconds, fraction and zone in the admitted forms passes."""
    assert is_valid_datetime(value) is True


@given(format_datetime_like)
@example("2026-02-29")
@example("2026-04-31")
@example("2026-08-30t14:05")
def test_every_accepted_string_names_a_real_calendar_date(value: str) -> None:
    """Acceptance implies month 1–12, a day that month has, and uppercase T/Z only."""
    if is_valid_datetime(value):
        year, month, day = int(value[:4]), int(value[5:7]), int(value[8:10])
        assert 1 <= month <= 12
        # Year 0 is a leap year like 2000 (same place in the 400-year cycle); the calendar
        # module cannot name year 0 itself.
        last_day = calendar.monthrange(year or 2000, month)[1]
        assert 1 <= day <= last_day
        assert "t" not in value
        assert "z" not in value


instants = st.datetimes(
    min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30), timezones=st.timezones()
)


@given(instants)
def test_utc_stamp_is_valid_and_names_the_same_second(instant: datetime) -> None:
    """The stamp passes §5 and reads back as the instant truncated to the second."""
    stamp = utc_stamp(instant)
    assert is_valid_datetime(stamp) is True
    assert stamp.endswith("Z")
    parsed = datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
    expected = instant.astimezone(UTC).replace(microsecond=0)
    assert expected == parsed


@given(instants, instants)
def test_utc_stamps_sort_like_the_instants(first: datetime, second: datetime) -> None:
    """String order of two stamps is the time order of the instants (to the second)."""
    a, b = (
        first.astimezone(UTC).replace(microsecond=0),
        second.astimezone(UTC).replace(microsecond=0),
    )
    assert (a < b) == (utc_stamp(first) < utc_stamp(second))


def test_utc_stamp_converts_offsets_and_pads_small_years() -> None:
    """A +02:00 instant is written in UTC, and year 5 is written `0005`."""
    plus_two = timezone(timedelta(hours=2))
    assert "2026-08-30T12:05:09Z" == utc_stamp(datetime(2026, 8, 30, 14, 5, 9, 999, plus_two))
    assert "0005-01-01T00:00:00Z" == utc_stamp(datetime(5, 1, 1, tzinfo=UTC))


def test_utc_stamp_refuses_naive_and_unrepresentable_instants() -> None:
    """A naive datetime names no instant; one that leaves year 1 in UTC cannot be written."""
    with pytest.raises(InvalidInput):
        utc_stamp(datetime(2026, 8, 30))
    with pytest.raises(InvalidInput):
        utc_stamp(datetime(1, 1, 1, tzinfo=timezone(timedelta(hours=5))))


@pytest.mark.parametrize(
    ("event_at", "label"),
    [
        ("2023-05-08", "2023-05-08"),
        ("2023-05-08T00:00:00Z", "2023-05-08"),
        ("2023-05-08T13:56:07Z", "2023-05-08 13:56:07 UTC"),
        ("2023-05-08T00:00:01Z", "2023-05-08 00:00:01 UTC"),
        ("2023-05-08T13:56+02:00", "2023-05-08 13:56+02:00"),
    ],
)
def test_an_event_label_is_as_precise_as_the_event(event_at: str, label: str) -> None:
    """Day alone for a date or midnight UTC; the time to the second for any other stamp."""
    assert label == event_label(event_at)


@given(
    st.datetimes(
        min_value=datetime(1, 1, 2),
        max_value=datetime(9999, 12, 31, 23, 59, 58),
        timezones=st.just(UTC),
    )
)
def test_two_instants_a_second_or_more_apart_get_different_labels(instant: datetime) -> None:
    """The label keeps every second of a stamp, so distinct stamps never share a label."""
    later = instant.replace(microsecond=0) + timedelta(seconds=1)
    assert event_label(utc_stamp(instant)) != event_label(utc_stamp(later))
