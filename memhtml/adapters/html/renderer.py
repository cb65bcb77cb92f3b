"""Write inputs to one canonical memory file (docs/format.md §1–§3).

Canonical means: the same inputs always give the same bytes, one element per line, metas in
the §2 emission order, links in authored order, every value HTML-escaped. The renderer then
parses its own output with the fast parser (a rendered file is always plain, so lexbor reads
it), so it refuses with the same ``InvalidMemory`` a reader would raise, and stamps the content
hash the reader computes, so the stated and computed hashes always agree. That one parse is
also handed back (``render_parsed``), so a writer never parses its own file again.
"""

from __future__ import annotations

import math
import re
from html import escape
from typing import Final

import attrs

from memhtml.adapters.html.article import LANG_TOKEN
from memhtml.adapters.html.parser import parse_memory
from memhtml.domain import meta_names as m
from memhtml.domain.datetimes import event_label, is_valid_datetime
from memhtml.domain.errors import InvalidInput
from memhtml.domain.model import (
    ACTIVE_STATUS,
    ASCII_WHITESPACE,
    RenderedMemory,
    RenderInputs,
    collapse_whitespace,
    split_entity_ref,
)
from memhtml.domain.vocabulary import DEFAULT_TASK_STATUS, TASK_TYPE, rel_to_token

_FENCE_OPEN: Final = re.compile(r"(`{3,})([^`\n]*)")
CONFIDENCE_DECIMALS: Final = 2
_DOCUMENT_START: Final = ("<!doctype html>", '<html lang="en">', "<head>", '<meta charset="utf-8">')


def meta_line(name: str, value: str) -> str:
    """One ``<meta>`` element with its attributes in the fixed ``name, content`` order."""
    return f'<meta name="{escape(name)}" content="{escape(value)}">'


def link_line(rel: str, target: str) -> str:
    """One ``<link>`` element for relation ``rel`` to repo path ``target``."""
    return f'<link rel="{escape(rel_to_token(rel))}" href="{escape("/" + target)}">'


# Stands in for the content hash until the draft's parse computes it; the same length and
# shape as a real one, so the draft reads exactly as the final file will.
_PLACEHOLDER_HASH: Final = "sha256:" + "0" * 64
_PLACEHOLDER_LINE: Final = meta_line(m.CONTENT_HASH, _PLACEHOLDER_HASH)


def format_confidence(confidence: float) -> str:
    """Confidence as written in a file: two decimals (``0.85``)."""
    return f"{confidence:.{CONFIDENCE_DECIMALS}f}"


def render_memory(inputs: RenderInputs) -> str:
    """Render a canonical memory file, content hash included (see ``render_parsed``)."""
    return render_parsed(inputs).text


def render_parsed(inputs: RenderInputs) -> RenderedMemory:
    """Render a canonical memory file, content hash included, with its parsed document.

    Args:
        inputs: The write inputs. Title, claim and paragraphs have whitespace runs collapsed;
            tags, entities and aliases are trimmed, blanks and repeats dropped.

    Returns:
        The file text, ending with a newline, and the document ``parse_memory`` reads from it.

    Raises:
        InvalidInput: a value the format cannot carry (confidence outside [0, 1], importance
            outside 1–10, an instant failing docs/format.md §5, a NUL character, both a claim and
            ``article_html``).
        InvalidMemory: the rendered file breaks a docs/format.md §10 constraint (empty claim,
            unknown type, bad link target…), with every violation.
    """
    _check_inputs(inputs)
    draft = _render(inputs, content_hash=_PLACEHOLDER_HASH)
    doc = parse_memory(draft)
    # The final file differs from the draft only in the value of one well-formed head meta,
    # the hash the article already has, so a reader sees the draft's document with that stated
    # hash: findings do not depend on the value. The head comes first, so the first copy of
    # the placeholder line is the renderer's own. A property test pins the equality.
    final = meta_line(m.CONTENT_HASH, doc.content_hash)
    return RenderedMemory(
        text=draft.replace(_PLACEHOLDER_LINE, final, 1),
        doc=attrs.evolve(doc, stated_content_hash=doc.content_hash),
    )


def _check_inputs(inputs: RenderInputs) -> None:
    texts = [inputs.title, inputs.claim, *inputs.body, inputs.article_html or ""]
    texts += [*inputs.tags, *inputs.entities, *inputs.aliases, inputs.author or ""]
    texts += [inputs.session_id or "", inputs.prompt_id or "", inputs.turn_uuid or ""]
    # HTML cannot carry NUL: the parser would drop or replace it, so the file would not say
    # what the caller wrote.
    if any("\x00" in text for text in texts):
        raise InvalidInput("memory text cannot contain NUL characters")
    if inputs.article_html is not None and (inputs.claim or inputs.body):
        raise InvalidInput("give either a claim with body paragraphs or article_html, not both")
    confidence = inputs.confidence
    if confidence is not None and not (math.isfinite(confidence) and 0 <= confidence <= 1):
        raise InvalidInput("confidence must be between 0 and 1")
    if inputs.importance is not None and not 1 <= inputs.importance <= 10:
        raise InvalidInput("importance must be an integer from 1 to 10")
    instants = {
        "created": inputs.created_at,
        "updated": inputs.updated_at,
        "event time": inputs.event_at,
        "valid-from": inputs.valid_from,
        "valid-until": inputs.valid_until,
        "due": inputs.due_at,
    }
    for label, value in instants.items():
        if value is not None and not is_valid_datetime(value):
            raise InvalidInput(f"{label} is not a valid datetime (docs/format.md §5)")


def _render(inputs: RenderInputs, content_hash: str) -> str:
    lines = [*_DOCUMENT_START, f"<title>{escape(collapse_whitespace(inputs.title))}</title>"]
    lines += [meta_line(name, value) for name, value in _metas(inputs, content_hash)]
    lines += [link_line(rel, target) for rel, target in dict.fromkeys(inputs.links)]
    lines += ["</head>", "<body>", "<article>", *_article_lines(inputs), "</article>"]
    lines += ["</body>", "</html>"]
    return "\n".join(lines) + "\n"


def _metas(inputs: RenderInputs, content_hash: str) -> list[tuple[str, str]]:
    task_status = inputs.task_status
    if task_status is None and inputs.memory_type == TASK_TYPE:
        task_status = DEFAULT_TASK_STATUS
    confidence = inputs.confidence
    importance = inputs.importance
    scalars = {
        m.TYPE: inputs.memory_type,
        m.STATUS: ACTIVE_STATUS,
        m.CREATED: inputs.created_at,
        m.UPDATED: inputs.updated_at,
        m.CONFIDENCE: None if confidence is None else format_confidence(confidence),
        m.IMPORTANCE: None if importance is None else str(importance),
        m.CONTENT_HASH: content_hash,
        m.AUTHOR: inputs.author,
        m.SESSION: inputs.session_id,
        m.PROMPT: inputs.prompt_id,
        m.TURN: inputs.turn_uuid,
        m.VALID_FROM: inputs.valid_from,
        m.VALID_UNTIL: inputs.valid_until,
        m.TASK_STATUS: task_status,
        m.DUE: inputs.due_at,
        m.PINNED: "true" if inputs.pinned else None,
    }
    metas = [(name, collapse_whitespace(v)) for name in m.SCALAR_METAS if (v := scalars.get(name))]
    entities = dict.fromkeys(split_entity_ref(value) for value in _values(inputs.entities))
    metas += [(m.ENTITY, entity.ref) for entity in entities]
    metas += [(m.TAG, tag) for tag in _values(inputs.tags)]
    metas += [(m.ALIAS, alias) for alias in _values(inputs.aliases)]
    return metas


def _values(values: tuple[str, ...]) -> dict[str, None]:
    """Repeatable meta values: whitespace collapsed, blanks and repeats dropped, order kept."""
    return dict.fromkeys(v for v in (collapse_whitespace(value) for value in values) if v)


def _article_lines(inputs: RenderInputs) -> list[str]:
    if inputs.article_html is not None:
        lines = [inputs.article_html.strip(ASCII_WHITESPACE)]
    else:
        paragraphs = [p for p in (_paragraph(text) for text in inputs.body) if p]
        claim = f"<mark>{escape(collapse_whitespace(inputs.claim), quote=False)}</mark>"
        if paragraphs and paragraphs[0].startswith("<p>"):
            first = paragraphs.pop(0)
            lines = [f"<p>{claim} {first.removeprefix('<p>')}"]
        else:
            lines = [f"<p>{claim}</p>"]
        lines += paragraphs
    if inputs.event_at is not None:
        label = escape(event_label(inputs.event_at), quote=False)
        lines.append(f'<p><time datetime="{escape(inputs.event_at)}">{label}</time></p>')
    return lines


def _paragraph(text: str) -> str:
    """One body paragraph as HTML: a code figure for a backtick fence, else a ``<p>``."""
    unified = text.replace("\r\n", "\n").replace("\r", "\n")
    figure = _fenced_code(unified.strip(ASCII_WHITESPACE))
    if figure is not None:
        return figure
    prose = collapse_whitespace(unified)
    return f"<p>{escape(prose, quote=False)}</p>" if prose else ""


def _fenced_code(text: str) -> str | None:
    """The ``<figure><pre><code>`` for a paragraph that is entirely one fence, else None."""
    lines = text.split("\n")
    opening = _FENCE_OPEN.fullmatch(lines[0])
    if opening is None or len(lines) < 2:
        return None
    fence = opening[1]
    closes = [_closes(line, fence) for line in lines[1:]]
    # Exactly one closing line, the last: otherwise the paragraph is a fence plus other text.
    if not closes[-1] or any(closes[:-1]):
        return None
    words = opening[2].split()
    lang = words[0].lower() if words else ""
    attribute = f' data-lang="{escape(lang)}"' if LANG_TOKEN.fullmatch(lang) else ""
    code = escape("\n".join(lines[1:-1]), quote=False)
    return f"<figure><pre><code{attribute}>{code}</code></pre></figure>"


def _closes(line: str, fence: str) -> bool:
    stripped = line.strip(" ")
    return len(stripped) >= len(fence) and set(stripped) == {"`"}
