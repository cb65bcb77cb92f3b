"""Hostile and broken input: every case ends in a MemoryDoc or an InvalidMemory, never a crash."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from memhtml.adapters.html import html5lib_guard
from memhtml.adapters.html.parser import parse_memory, parse_memory_reference
from memhtml.adapters.html.tree import (
    MAX_ATTRIBUTES_PER_ELEMENT,
    MAX_ELEMENTS,
    MAX_FILE_BYTES,
    MAX_NESTING_DEPTH,
)
from memhtml.domain.errors import InvalidMemory
from memhtml.domain.model import MemoryDoc
from tests.integration.test_html_examples import SEMANTIC_EXAMPLE
from tests.strategies import format_html_ish


def codes(data: bytes | str) -> list[str]:
    with pytest.raises(InvalidMemory) as caught:
        parse_memory(data)
    return [finding.code for finding in caught.value.violations]


def outcome(data: bytes | str) -> MemoryDoc | InvalidMemory:
    """The parse result, or the InvalidMemory it raised; any other exception escapes."""
    try:
        return parse_memory(data)
    except InvalidMemory as e:
        return e


def with_article_tail(extra: str) -> str:
    return SEMANTIC_EXAMPLE.replace("</article>", extra + "</article>")


def test_empty_input_lists_every_missing_part() -> None:
    """An empty file misses its title, four metas and the article, all reported."""
    expected = ["title-count", *["meta-missing"] * 4, "article-count"]
    assert expected == codes(b"")


def test_non_utf8_bytes_are_refused_with_a_clear_finding() -> None:
    """Latin-1 bytes give encoding-invalid with the offset, not a UnicodeDecodeError."""
    data = SEMANTIC_EXAMPLE.replace("honours", "honoürs").encode("latin-1")
    with pytest.raises(InvalidMemory) as caught:
        parse_memory(data)
    assert ["encoding-invalid"] == [f.code for f in caught.value.violations]
    assert "offset" in caught.value.violations[0].detail


def test_lone_surrogates_in_text_are_refused() -> None:
    """A str with a lone surrogate cannot be UTF-8, so it is refused like bad bytes."""
    assert ["encoding-invalid"] == codes(SEMANTIC_EXAMPLE.replace("honours", "hon\ud800ours"))


def test_a_utf8_bom_is_dropped_before_parsing() -> None:
    """A leading BOM does not push the head into the body."""
    doc = parse_memory(b"\xef\xbb\xbf" + SEMANTIC_EXAMPLE.encode("utf-8"))
    assert "semantic" == doc.memory_type


def test_binary_garbage_is_invalid_memory() -> None:
    """Random-looking bytes that happen to be UTF-8 still end in InvalidMemory."""
    garbage = bytes(range(256)).decode("latin-1").encode("utf-8") * 4
    assert "article-count" in codes(garbage)


def test_missing_article() -> None:
    """A file whose body has no <article> is refused with article-count."""
    html = SEMANTIC_EXAMPLE.replace("<article>", "<section>").replace("</article>", "</section>")
    assert ["article-count"] == codes(html)


def test_two_marks() -> None:
    """A second <mark> anywhere in the article is a mark-count violation."""
    assert ["mark-count"] == codes(with_article_tail("<p><mark>Second claim.</mark></p>"))


def test_mark_inside_aside() -> None:
    """The only <mark>, inside an <aside>, is mark-in-aside (and not also mark-position)."""
    html = SEMANTIC_EXAMPLE.replace("<mark>", "").replace("</mark>", "")
    html = html.replace("<p>Internal", "<p><mark>Internal").replace(
        "limit.</p>", "limit.</mark></p>"
    )
    assert ["mark-in-aside"] == codes(html)


@pytest.mark.parametrize("cut", [0.1, 0.3, 0.5, 0.7, 0.9])
def test_truncated_files_fail_or_parse_but_never_crash(cut: float) -> None:
    """A file cut short is either refused or parsed (its stated hash then disagrees)."""
    data = SEMANTIC_EXAMPLE.encode("utf-8")[: int(len(SEMANTIC_EXAMPLE) * cut)]
    result = outcome(data)
    if isinstance(result, InvalidMemory):
        assert result.violations != ()
    else:
        assert result.stated_content_hash != result.content_hash


def test_truncated_inside_a_multibyte_character_is_an_encoding_finding() -> None:
    """Cutting a UTF-8 sequence in half is reported as encoding-invalid."""
    data = (SEMANTIC_EXAMPLE + "é").encode("utf-8")[:-1]
    assert ["encoding-invalid"] == codes(data)


def test_five_megabyte_file_is_refused_before_parsing() -> None:
    """A 5 MB file is over the size cap: one file-too-large finding."""
    data = with_article_tail("<p>" + "word " * 1_000_000 + "</p>").encode("utf-8")
    assert len(data) > 5_000_000
    assert ["file-too-large"] == codes(data)


def test_a_file_at_the_size_cap_is_parsed() -> None:
    """Exactly MAX_FILE_BYTES is still accepted."""
    filler = MAX_FILE_BYTES - len(with_article_tail("<p></p>").encode("utf-8"))
    data = with_article_tail("<p>" + "x" * filler + "</p>").encode("utf-8")
    assert MAX_FILE_BYTES == len(data)
    assert isinstance(parse_memory(data), MemoryDoc)


def test_ten_thousand_nested_divs() -> None:
    """Deep nesting is refused at the depth cap instead of walking 10,000 levels."""
    assert ["nesting-too-deep"] == codes(with_article_tail("<div>" * 10_000))


def test_nesting_just_under_the_cap_is_parsed() -> None:
    """Markup a few levels below the cap parses, and the walk needs no recursion."""
    depth = MAX_NESTING_DEPTH - 8
    doc = parse_memory(with_article_tail("<section>" * depth + "deep" + "</section>" * depth))
    assert doc.body_text.endswith("deep")


def test_reopened_formatting_elements_hit_the_depth_cap() -> None:
    """Misnested <b>s that html5lib reopens in every <p> cannot grow without bound."""
    assert ["nesting-too-deep"] == codes("".join(f"<p><b id={i}>x</p>" for i in range(2000)))


def test_too_many_attributes_on_one_tag() -> None:
    """One tag with thousands of attributes is refused at the attribute cap."""
    attributes = " ".join(f"a{i}" for i in range(10 * MAX_ATTRIBUTES_PER_ELEMENT))
    assert ["attributes-too-many"] == codes(with_article_tail(f"<p {attributes}>x</p>"))


def test_too_many_elements() -> None:
    """Tag soup past the element cap is refused."""
    assert ["elements-too-many"] == codes(with_article_tail("<i>x</i>" * (MAX_ELEMENTS + 1)))


def test_a_failing_html5lib_surfaces_as_invalid_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    """A library error inside the parse becomes parse-failed, and the next parse works."""

    def broken(self: object) -> bool:
        raise ValueError("tokenizer bug")

    with monkeypatch.context() as patch:
        patch.setattr(html5lib_guard._GuardedTokenizer, "dataState", broken)
        with pytest.raises(InvalidMemory) as caught:
            parse_memory_reference(SEMANTIC_EXAMPLE)
        assert ["parse-failed"] == [finding.code for finding in caught.value.violations]
    assert "semantic" == parse_memory_reference(SEMANTIC_EXAMPLE).memory_type


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(format_html_ish)
@example("<plaintext></article>")
@example("<frameset><article>")
@example("<svg><script>x</script></svg><math><mark>")
def test_html_ish_soup_raises_nothing_but_invalid_memory(text: str) -> None:
    """Any HTML-ish text yields a MemoryDoc or InvalidMemory with at least one violation."""
    result = outcome(text)
    if isinstance(result, InvalidMemory):
        assert result.violations != ()
    else:
        assert result.content_hash.startswith("sha256:")


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, len(SEMANTIC_EXAMPLE)), format_html_ish)
def test_soup_spliced_into_a_valid_file_raises_nothing_but_invalid_memory(
    at: int, soup: str
) -> None:
    """Mostly-valid files with junk inserted anywhere still fail cleanly or parse."""
    result = outcome(SEMANTIC_EXAMPLE[:at] + soup + SEMANTIC_EXAMPLE[at:])
    if isinstance(result, InvalidMemory):
        assert result.violations != ()
    else:
        assert result.content_hash.startswith("sha256:")


@given(st.binary(max_size=300))
def test_arbitrary_bytes_raise_nothing_but_invalid_memory(data: bytes) -> None:
    """Raw bytes: decoding or validation fails as InvalidMemory, never anything else."""
    with pytest.raises(InvalidMemory):
        parse_memory(data)
