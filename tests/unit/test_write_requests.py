"""Write requests: the claim split of a bare body, request checks, caller instants."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from memhtml.domain.datetimes import is_valid_datetime
from memhtml.domain.errors import InvalidInput
from memhtml.domain.model import collapse_whitespace
from memhtml.domain.user_instants import normalize_user_instant
from memhtml.domain.write_requests import WriteRequest, checked, render_inputs, split_claim
from tests.strategies import awkward_text

STAMP = "2026-09-14T07:02:11Z"


def test_first_sentence_becomes_the_claim() -> None:
    """``body`` without ``claim``: sentence one is the claim, the rest of its paragraph follows."""
    body = ("The lock holds 40 minutes. It starts at 01:00.\n\nMeasured twice.",)
    assert ("The lock holds 40 minutes.", ("It starts at 01:00.", "Measured twice.")) == (
        split_claim(body)
    )


def test_body_without_a_sentence_end_is_all_claim() -> None:
    """A body with no ``.``/``!``/``?`` seam is one claim; later items stay paragraphs."""
    assert ("no full stop here", ("second",)) == split_claim(("no full stop here", "second"))


def test_render_inputs_use_the_split_for_a_bare_body() -> None:
    """The renderer gets the split claim and paragraphs, and ``now`` as both stamps."""
    request = WriteRequest(title="T", memory_type="semantic", body=("One. Two.",))
    inputs = render_inputs(request, now=STAMP)
    assert ("One.", ("Two.",), STAMP, STAMP) == (
        inputs.claim,
        inputs.body,
        inputs.created_at,
        inputs.updated_at,
    )


@given(body=st.lists(awkward_text, min_size=1, max_size=3).map(tuple))
@example(body=("A. B.\n\nC",))
@example(body=("  lead. \n \n tail",))
def test_split_only_cuts_whitespace(body: tuple[str, ...]) -> None:
    """Claim plus paragraphs hold the body's words in order: only whitespace is cut."""
    claim, paragraphs = split_claim(body)
    rejoined = collapse_whitespace(" ".join([claim, *paragraphs]))
    assert collapse_whitespace(" ".join(body)) == rejoined


@given(body=st.lists(awkward_text, min_size=1, max_size=3).map(tuple))
def test_claim_holds_no_sentence_seam(body: tuple[str, ...]) -> None:
    """The claim never contains a sentence end followed by whitespace: it is one sentence."""
    claim, _ = split_claim(body)
    assert not any(claim[i] in ".!?" and claim[i + 1] in " \t\n\f\r" for i in range(len(claim) - 1))


@pytest.mark.parametrize(
    ("request_", "message"),
    [
        (WriteRequest(title="T", memory_type="arc", claim="c"), "sleep only"),
        (WriteRequest(title="T", memory_type="fact", claim="c"), "type must be"),
        (WriteRequest(title="T", memory_type="semantic"), "claim, a body"),
        (
            WriteRequest(title="T", memory_type="semantic", claim="c", article_html="<p>x</p>"),
            "either",
        ),
        (
            WriteRequest(
                title="T", memory_type="semantic", article_html="<p>x</p>", event_at="2026-01-01"
            ),
            "event time",
        ),
        (WriteRequest(title="T", memory_type="semantic", claim="c", event_at="2026-13-01"), "ISO"),
    ],
)
def test_malformed_requests_are_refused(request_: WriteRequest, message: str) -> None:
    """Type outside the nine, no article, exclusive article forms, a bad instant: InvalidInput."""
    with pytest.raises(InvalidInput, match=message):
        checked(request_)


def test_checked_normalises_instants() -> None:
    """A zoned time becomes a UTC stamp; a bare date stays a date."""
    request = WriteRequest(
        title="T",
        memory_type="episodic",
        claim="c",
        event_at="2026-08-30 14:05:09.25+02:00",
        valid_from="2026-09-01",
    )
    done = checked(request)
    assert ("2026-08-30T12:05:09Z", "2026-09-01") == (done.event_at, done.valid_from)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("2026-08-30", "2026-08-30"),
        ("2026-08-30T14:05", "2026-08-30T14:05:00Z"),
        ("2026-08-30T23:59:60Z", "2026-08-30T23:59:59Z"),
        ("2026-08-30T00:30-0130", "2026-08-30T02:00:00Z"),
        (" 2026-08-30T14:05Z ", "2026-08-30T14:05:00Z"),
    ],
)
def test_user_instants_normalise(raw: str, expected: str) -> None:
    """Times move to UTC seconds; leap seconds clamp to :59; dates stay dates."""
    assert expected == normalize_user_instant(raw, "--event-at")


@pytest.mark.parametrize(
    "raw", ["2026-08", "yesterday", "0000-01-01T00:00Z", "0001-01-01T00:00+01:00"]
)
def test_bad_user_instants_are_refused(raw: str) -> None:
    """Not §5, year zero, or before year 1 once in UTC: InvalidInput."""
    with pytest.raises(InvalidInput):
        normalize_user_instant(raw, "--event-at")


# Whole-minute offsets: docs/format.md §5 zones have no seconds (historic zones such as LMT do).
minute_zones = st.integers(min_value=-1439, max_value=1439).map(
    lambda minutes: dt.timezone(dt.timedelta(minutes=minutes))
)


@given(
    instant=st.datetimes(
        timezones=minute_zones, min_value=dt.datetime(2, 1, 1), max_value=dt.datetime(9998, 12, 31)
    )
)
@example(instant=dt.datetime(1930, 1, 1, tzinfo=dt.timezone(dt.timedelta(hours=2, minutes=6))))
def test_normalised_instants_are_valid_fixed_points(instant: dt.datetime) -> None:
    """A normalised instant is §5-valid, names the same second, and normalises to itself."""
    text = instant.isoformat(sep="T", timespec="seconds")
    normal = normalize_user_instant(text, "x")
    parsed = dt.datetime.strptime(normal, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=dt.UTC)
    assert is_valid_datetime(normal)
    assert instant.replace(microsecond=0) == parsed
    assert normal == normalize_user_instant(normal, "x")


@pytest.mark.parametrize(
    ("request_", "field"),
    [
        (WriteRequest(title="T\x1b[31m", memory_type="semantic", claim="c"), "title"),
        (WriteRequest(title="T", memory_type="semantic", claim="c\x9b2J"), "claim"),
        (WriteRequest(title="T", memory_type="semantic", body=("c\x07 said. More.",)), "claim"),
        (WriteRequest(title="T", memory_type="semantic", claim="c", tags=("ok", "\x7f")), "tag"),
        (
            WriteRequest(title="T", memory_type="semantic", claim="c", entities=("p:\x00x",)),
            "entity",
        ),
    ],
)
def test_control_characters_are_refused_naming_the_field(
    request_: WriteRequest, field: str
) -> None:
    """ESC, CSI, BEL, DEL or NUL in a title, claim (given or split), tag or entity: refused."""
    with pytest.raises(InvalidInput, match=f"^{field} holds control character U\\+00"):
        checked(request_)


def test_whitespace_controls_and_later_body_text_are_accepted() -> None:
    """Tab, newline and CR are whitespace; a control past the claim is the body's business."""
    request = WriteRequest(
        title="T\tU", memory_type="semantic", body=("A claim.\r\nThen \x1b here.",)
    )
    assert "T\tU" == checked(request).title
