"""The content hash (docs/format.md §7): its test vectors and what it must and must not notice."""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from memhtml.adapters.html.content_hash import canonical_text, content_hash_of
from memhtml.adapters.html.tree import parse_tree, scan_tree
from memhtml.domain.errors import InvalidMemory
from tests.integration.test_html_examples import SEMANTIC_EXAMPLE
from tests.strategies import format_words


def _canonical(html: str) -> str:
    scan = scan_tree(parse_tree(html))
    assert scan.article is not None
    return canonical_text(scan, scan.article)


@pytest.mark.parametrize(
    ("article", "canonical", "prefix"),
    [
        ("<article><ul><li>one</li><li>two</li></ul></article>", "one two", "sha256:8ab63e29a4ba"),
        (
            "<article>\n  <ul>\n    <li>one</li>\n    <li>two</li>\n  </ul>\n</article>",
            "one two",
            "sha256:8ab63e29a4ba",
        ),
        ("<article><p><mark>Keep</mark> this</p></article>", "Keep this", "sha256:0a9cae06c203"),
        (
            "<article><p><mark>Keep</mark>&nbsp;this</p></article>",
            "Keep\u00a0this",
            "sha256:eae73b7df39f",
        ),
        (
            "<article><p><mark>Keep</mark> this</p><pre>  a\n b</pre></article>",
            "Keep this   a\n b",
            "sha256:84a0551fcc95",
        ),
    ],
)
def test_spec_vectors(article: str, canonical: str, prefix: str) -> None:
    """The four §7 vectors (one pretty-printed) give the stated text and hash prefix."""
    assert canonical == _canonical(article)
    assert prefix == content_hash_of(article)[: len(prefix)]


def test_cli_write_example_hash() -> None:
    """The article of docs/cli-contract.md §6's write example hashes to the contentHash that example
    prints."""
    article = (
        "<article>\n<p><mark>The invoice export job starts at 03:30 UTC every night.</mark> "
        "Moved from 01:00 after the ledger lock contention.</p>\n</article>"
    )
    expected = "sha256:41390c72342fdcd4bf13952f25cd7df622db9e113df88545e3202b9e8f0b55bc"
    assert expected == content_hash_of(article)


def test_hash_is_64_lowercase_hex_digits() -> None:
    """`sha256:` then 64 lowercase hex digits."""
    digest = content_hash_of("<article><p>x</p></article>")
    assert digest.startswith("sha256:")
    assert 64 == len(digest.removeprefix("sha256:"))
    assert digest == digest.lower()


def test_head_and_attribute_values_are_outside_the_scope() -> None:
    """Changing metas, links or attribute values keeps the hash; the first <article> counts."""
    changed = (
        SEMANTIC_EXAMPLE.replace('content="0.85"', 'content="0.5"')
        .replace("/resources/rate-limits/gateway-quota-policy.html", "/x.html")
        .replace('cite="https://wiki.example.com/gateway/limits"', 'cite="https://other"')
        .replace('<data value="300">', '<data value="301">')
    )
    assert content_hash_of(SEMANTIC_EXAMPLE) == content_hash_of(changed)


def test_pre_content_and_nbsp_are_content() -> None:
    """Whitespace inside <pre> and a no-break space each change the hash."""
    base = "<article><p>a b</p><pre>x y</pre></article>"
    assert content_hash_of(base) != content_hash_of(base.replace("x y", "x  y"))
    assert content_hash_of(base) != content_hash_of(base.replace("a b", "a&nbsp;b"))


def test_inline_elements_do_not_add_spaces_but_blocks_do() -> None:
    """`<em>` joins text directly; an unknown element counts as a block."""
    assert "ab" == _canonical("<article><p><em>a</em><strong>b</strong></p></article>")
    assert "a b" == _canonical("<article><p><foo>a</foo><bar>b</bar></p></article>")
    assert "a b" == _canonical("<article><p>a<br>b</p></article>")


def test_comments_are_ignored_but_their_trailing_text_is_kept() -> None:
    """A comment vanishes; the text after it stays in place."""
    assert "ab" == _canonical("<article><p>a<!-- note -->b</p></article>")


def test_newline_right_after_pre_is_dropped() -> None:
    """The HTML parser drops one newline directly after <pre>."""
    assert "x" == _canonical("<article><pre>\nx</pre></article>")


def test_content_hash_of_refuses_markup_without_an_article() -> None:
    """Nothing to hash is an InvalidMemory, not an empty hash."""
    with pytest.raises(InvalidMemory):
        content_hash_of("<p>no article</p>")


# Blocks that html5lib always keeps as elements wherever they appear (a stray <td> would be
# dropped, taking its word boundary with it).
BLOCKS = ["p", "li", "div", "section", "aside", "details", "dd", "figure", "foo"]
SELF_CLOSING_BY_SIBLING = frozenset({"p", "li", "dd"})
INLINES = ["em", "strong", "mark", "code", "span", "a", "cite", "abbr"]


@st.composite
def nested_blocks(draw: st.DrawFn) -> tuple[str, list[str]]:
    """Article inner HTML of words in nested blocks, and the words in document order.

    Two words always have a block edge between them: either some block closes after the
    first, or the second opens a new block (inside the first's), so both the closing and the
    opening space of a block are exercised.
    """
    words = draw(format_words)
    html: list[str] = []
    stack: list[str] = []
    closed = True
    for word in words:
        opened = draw(st.lists(st.sampled_from(BLOCKS), min_size=0 if closed else 1, max_size=3))
        # An open <p>, <li> or <dd> is closed by the next one's start tag (HTML's implied end
        # tags), so a second one inside it would not nest: the stack model would be wrong.
        opened = [
            "div" if b in SELF_CLOSING_BY_SIBLING and b in (*stack, *opened[:i]) else b
            for i, b in enumerate(opened)
        ]
        inline = draw(st.sampled_from([None, *INLINES]))
        escaped = word.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        text = f"<{inline}>{escaped}</{inline}>" if inline else escaped
        space = draw(st.sampled_from([" ", "\n", "\t  ", ""]))
        html.append("".join(f"<{b}>" for b in opened) + space + text + space)
        stack += opened
        closing = draw(st.integers(0, len(stack)))
        closed = closing > 0
        for _ in range(closing):
            html.append(f"</{stack.pop()}>")
    html += [f"</{b}>" for b in reversed(stack)]
    return "".join(html), words


@given(nested_blocks())
@example(("<p>a</p> <p>b</p>", ["a", "b"]))
@example(("<ul><li>a<ul><li>b</li></ul></li></ul>", ["a", "b"]))
def test_canonical_text_of_words_in_blocks_is_the_words_single_spaced(
    case: tuple[str, list[str]],
) -> None:
    """Block edges and whitespace runs become single spaces; nothing leads or trails."""
    inner, words = case
    assert " ".join(words) == _canonical(f"<article>{inner}</article>")


indent = st.text(alphabet=" \t\n\r\f", min_size=1, max_size=6)


@given(indent, indent)
def test_re_indenting_the_article_keeps_the_hash(lead: str, inner: str) -> None:
    """Whitespace added between block tags (outside <pre>) never changes the hash."""
    start = SEMANTIC_EXAMPLE.index("<article>")
    end = SEMANTIC_EXAMPLE.index("</article>")
    article = SEMANTIC_EXAMPLE[start:end]
    before_pre, pre_and_after = article.split("<pre>", 1)
    pre, after_pre = pre_and_after.split("</pre>", 1)

    def reindent(part: str) -> str:
        return part.replace("\n<", "\n" + lead + "<").replace("><dd>", ">" + inner + "<dd>")

    pretty = reindent(before_pre) + "<pre>" + pre + "</pre>" + reindent(after_pre)
    changed = SEMANTIC_EXAMPLE[:start] + pretty + SEMANTIC_EXAMPLE[end:]
    assert content_hash_of(SEMANTIC_EXAMPLE) == content_hash_of(changed)
