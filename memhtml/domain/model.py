"""What one memory file says, once parsed, and what it takes to write one (docs/format.md §2–§6).

``MemoryDoc`` is the parser's output and the indexer's input; ``RenderInputs`` is the writer's
input. Both are plain values so the SQLite projection, the CLI and tests share them without
knowing anything about HTML.

The row types (``EntityRef``, ``Link``, ``Facet``, ``Citation``) are named tuples rather than
attrs classes on purpose: consumers unpack them as ``(type, name)``, ``(rel, target)`` pairs and
bind them straight into SQL parameters, and a tuple compares equal to the plain pair.
"""

from __future__ import annotations

import re
from typing import Final, NamedTuple

import attrs

from memhtml.domain.findings import Finding

UNKNOWN_ENTITY_TYPE: Final = "unknown"
ENTITY_SEPARATOR: Final = ":"
CONCEPT_ENTITY_TYPE: Final = "concept"
LANG_ENTITY_TYPE: Final = "lang"
DEFAULT_CONFIDENCE: Final = 1.0
DEFAULT_IMPORTANCE: Final = 5
DEFAULT_AUTHOR: Final = "agent"
DEFAULT_REPRIEVES: Final = 0
ACTIVE_STATUS: Final = "active"
ARCHIVED_STATUS: Final = "archived"

# HTML's "ASCII whitespace". Python's str.split() and `\s` would also eat U+00A0, which the
# format treats as content (docs/format.md §7, step 4).
ASCII_WHITESPACE: Final = " \t\n\f\r"
_ASCII_WS_TO_SPACE: Final = str.maketrans("\t\n\f\r", "    ")


class EntityRef(NamedTuple):
    """An entity a memory is about, as ``type:name`` (``service:search-api``)."""

    type: str
    name: str

    @property
    def ref(self) -> str:
        """The ``type:name`` form used by metas, flags and search output."""
        return f"{self.type}{ENTITY_SEPARATOR}{self.name}"


class Link(NamedTuple):
    """An authored edge from the file's head: relation name and repo-relative target path."""

    rel: str
    target: str


class Facet(NamedTuple):
    """One ``<dt>``/``<dd>`` row; ``numeric_value`` from the first parseable ``<data value>``."""

    name: str
    value: str
    numeric_value: float | None


class Citation(NamedTuple):
    """A ``<cite>`` (no href) or ``<q cite>`` (href = any URI) in the article."""

    text: str
    href: str | None


def collapse_whitespace(text: str) -> str:
    """Collapse every ASCII whitespace run to one space and trim (U+00A0 is kept)."""
    # translate + split runs in C, about four times faster than a regex on a 100 KB article.
    return " ".join(filter(None, text.translate(_ASCII_WS_TO_SPACE).split(" ")))


def split_entity_ref(value: str) -> EntityRef:
    """Split a ``type:name`` reference at its first colon, trimming each side.

    A value with no colon, or with an empty side, is filed under the type ``unknown`` with the
    whole trimmed value as its name: it is still a real handle a query can use, and dropping it
    would lose a hand-written file's only entity.
    """
    whole = value.strip(ASCII_WHITESPACE)
    entity_type, sep, name = whole.partition(ENTITY_SEPARATOR)
    entity_type, name = entity_type.strip(ASCII_WHITESPACE), name.strip(ASCII_WHITESPACE)
    if not sep or not entity_type or not name:
        return EntityRef(UNKNOWN_ENTITY_TYPE, whole)
    return EntityRef(entity_type, name)


def link_target_of(href: str) -> str | None:
    """The stored target of a ``<link href>``, or None when the href breaks docs/format.md §3.

    The href must start with ``/`` but not ``//`` (no scheme, no host); its path part, before
    any ``?`` or ``#``, splits on ``/`` into segments none of which is empty, ``.`` or ``..``.
    The target is that path part without its leading slash. Because empty segments are
    refused, a slash-collapsing normalisation (docs/format.md §3) never has anything left to do.
    """
    if not href.startswith("/") or href.startswith("//"):
        return None
    path = re.split(r"[?#]", href, maxsplit=1)[0][1:]
    if any(seg in ("", ".", "..") for seg in path.split("/")):
        return None
    return path


def fts_text_of(title: str, gist: str, body_text: str) -> str:
    """The one FTS column: title, gist and body, empty parts left out, joined by newlines.

    Newlines rather than spaces so the last word of the title cannot fuse with the first word
    of the gist into a phrase neither states.
    """
    return "\n".join(part for part in (title, gist, body_text) if part)


def disclosure_text_of(
    gist: str,
    summary_texts: tuple[str, ...],
    facets: tuple[Facet, ...],
    citations: tuple[Citation, ...],
) -> str:
    """The text recall may quote: claim, headlines, ``name: value`` facets, citation texts.

    One line per non-blank item, whitespace collapsed. Nothing else: paragraphs,
    ``<details>`` bodies and ``<aside>`` caveats never appear, since a one-line quote has no
    room to say "this is the exception".
    """
    lines = [gist, *summary_texts]
    lines += [f"{facet.name}: {facet.value}" for facet in facets]
    lines += [citation.text for citation in citations]
    # Collapsed, so each item is exactly one line even if a caller passes raw text.
    return "\n".join(line for line in map(collapse_whitespace, lines) if line)


def word_count_of(body_text: str) -> int:
    """Whitespace-separated tokens of the article text, as the FTS tokenizer sees them."""
    # Unicode whitespace on purpose (unlike the hash): FTS5's unicode61 tokenizer also splits
    # at U+00A0, and this count should describe what the index holds.
    return len(body_text.split())


@attrs.frozen(kw_only=True)
class MemoryDoc:
    """One parsed memory file: typed head metas, article-derived fields and warnings.

    Optional metas that were absent or malformed hold their column default (docs/format.md §2);
    date-like values are kept verbatim as written.

    Attributes:
        title: ``<title>`` text, whitespace collapsed.
        memory_type, status, created_at, updated_at: The four required metas.
        confidence, importance, author, reprieves: Optional metas (defaults 1.0, 5, ``agent``, 0).
        stated_content_hash: The advisory ``memhtml-content-hash`` meta; may disagree.
        session_id, prompt_id, turn_uuid: Opaque agent ids.
        valid_from, valid_until, archived_at, due_at: Datetime metas, verbatim.
        superseded_by: ``/path.html`` of the replacement, as written.
        needs_revision: ``true``/``1``/``yes`` in any case.
        task_status: ``todo``/``doing``/``blocked``/``done`` on tasks, else None.
        pinned: ``memhtml-pinned``, read like ``needs_revision``; the authority step favours a
            pinned memory in a close contest.
        entities: Meta entities, then ``concept:`` terms, then ``lang:`` values, deduplicated.
        tags, aliases: Trimmed, blanks and repeats dropped, in document order.
        links: Authored ``(rel, target)`` edges, repeats dropped; self-links still included
            (the parser does not know the file's path; see ``links_from``).
        gist: The claim: ``<mark>`` text without its code.
        body_text: The whole article's text (details, asides, captions and code included).
        event_at: ``datetime`` of the article's first ``<time>``.
        facets, citations: ``<dl>`` rows and ``<cite>``/``<q>`` texts, in document order.
        defined_terms, summary_texts, aside_texts, captions: Non-empty ``<dfn>``,
            ``<summary>``, ``<aside>`` and ``<figcaption>`` texts.
        abbreviations: Non-empty ``<abbr title>`` values.
        code_langs: Valid ``data-lang`` values, lowercased.
        fts_text, disclosure_text, word_count: The derived texts of docs/format.md §6.
        content_hash: The hash recomputed from the article (docs/format.md §7).
        warnings: Non-blocking findings in docs/format.md §10 order.
    """

    title: str
    memory_type: str
    status: str
    created_at: str
    updated_at: str
    confidence: float = DEFAULT_CONFIDENCE
    importance: int = DEFAULT_IMPORTANCE
    stated_content_hash: str | None = None
    author: str = DEFAULT_AUTHOR
    session_id: str | None = None
    prompt_id: str | None = None
    turn_uuid: str | None = None
    valid_from: str | None = None
    valid_until: str | None = None
    reprieves: int = DEFAULT_REPRIEVES
    archived_at: str | None = None
    superseded_by: str | None = None
    needs_revision: bool = False
    task_status: str | None = None
    due_at: str | None = None
    pinned: bool = False
    entities: tuple[EntityRef, ...] = ()
    tags: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()
    links: tuple[Link, ...] = ()
    gist: str = ""
    body_text: str = ""
    event_at: str | None = None
    facets: tuple[Facet, ...] = ()
    citations: tuple[Citation, ...] = ()
    defined_terms: tuple[str, ...] = ()
    summary_texts: tuple[str, ...] = ()
    aside_texts: tuple[str, ...] = ()
    captions: tuple[str, ...] = ()
    abbreviations: tuple[str, ...] = ()
    code_langs: tuple[str, ...] = ()
    fts_text: str = ""
    disclosure_text: str = ""
    word_count: int = 0
    content_hash: str
    warnings: tuple[Finding, ...] = ()

    def links_from(self, path: str) -> tuple[Link, ...]:
        """The authored links of the file stored at ``path``, without links to itself."""
        return tuple(link for link in self.links if link.target != path)


@attrs.frozen(kw_only=True)
class RenderInputs:
    """Everything the writer needs to produce one canonical memory file.

    The article is either ``claim`` plus ``body`` paragraphs (a paragraph that is one backtick
    fence becomes a code figure) or a caller's own ``article_html``. Optional metas left None
    are not written, so the reader applies the column default. Placement (path, workspace) is
    decided elsewhere and leaves no trace in the file. Instants are strings that satisfy
    docs/format.md §5; the program's own stamps come from ``utc_stamp``.

    Attributes:
        title, memory_type, created_at, updated_at: Required.
        claim: The ``<mark>`` sentence; ``body`` paragraphs follow it.
        article_html: The article's inner HTML instead of claim and body.
        tags, entities, aliases: Repeatable metas; entities as ``type:name``.
        links: ``(rel, target)`` edges in the order they are written.
        importance, confidence, author, session_id, prompt_id, turn_uuid: Optional metas.
        event_at: Appended as ``<p><time datetime>`` and read back as ``event_at``.
        valid_from, valid_until, due_at: Optional datetime metas.
        task_status: For tasks; None writes ``todo``.
        pinned: Writes ``memhtml-pinned`` as ``true``.
    """

    title: str
    memory_type: str
    created_at: str
    updated_at: str
    claim: str = ""
    body: tuple[str, ...] = ()
    article_html: str | None = None
    tags: tuple[str, ...] = ()
    entities: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()
    links: tuple[Link, ...] = ()
    importance: int | None = None
    confidence: float | None = None
    author: str | None = None
    session_id: str | None = None
    prompt_id: str | None = None
    turn_uuid: str | None = None
    event_at: str | None = None
    valid_from: str | None = None
    valid_until: str | None = None
    task_status: str | None = None
    due_at: str | None = None
    pinned: bool = False


@attrs.frozen(kw_only=True)
class RenderedMemory:
    """A rendered file and the document a reader parses from it.

    Attributes:
        text: The canonical file text, content hash stamped.
        doc: Equal to parsing ``text``, obtained without parsing ``text`` again.
    """

    text: str
    doc: MemoryDoc
