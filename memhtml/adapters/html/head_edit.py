"""Surgical edits to the head of an existing file: set a meta, add, retarget or drop a link,
mark archived.

An edit rewrites or inserts one element and leaves every other byte alone, so a git diff of an
archive move or a new edge shows exactly one changed line, hand-written formatting survives,
and the article (hence the content hash) is never touched. New elements go where the renderer
would put them: metas in the docs/format.md §2 order, links after the last link.

The head is found by a small linear scanner rather than by re-serialising a parsed tree, which
would rewrite the whole file in the parser's own style.
"""

from __future__ import annotations

import re
from html import escape, unescape
from typing import Final, NamedTuple

from memhtml.adapters.html.renderer import link_line, meta_line
from memhtml.domain import meta_names as m
from memhtml.domain.datetimes import is_valid_datetime
from memhtml.domain.errors import InvalidInput, InvalidMemory
from memhtml.domain.findings import Finding
from memhtml.domain.model import (
    ARCHIVED_STATUS,
    ASCII_WHITESPACE,
    collapse_whitespace,
    link_target_of,
)
from memhtml.domain.vocabulary import ALL_RELS, rel_to_token

# A tag with its attribute text. `<` is excluded from unquoted attribute text and every
# quantifier is possessive, so a failed match stops at the next `<` instead of backtracking:
# the scan stays linear on any input.
_TAG: Final = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9:-]*+)((?:[^>\"'<]++|\"[^\"]*+\"|'[^']*+')*+)>")
_ATTRIBUTE: Final = re.compile(r"([^\s\"'>/=]+)(?:\s*=\s*(?:\"([^\"]*)\"|'([^']*)'|([^\s>]+)))?")
# Elements that may sit in a head; any other start tag implicitly ends it, as in HTML parsing.
_HEAD_ELEMENTS: Final = frozenset(
    {"html", "head", "title", "meta", "link", "base", "style", "script", "noscript", "template"}
)
# Their content is text, so a `<meta` inside them is not a tag: skip to the closing tag.
_TEXT_ELEMENT_ENDS: Final = {
    name: re.compile(rf"</{name}[^>]*+>", re.IGNORECASE) for name in ("title", "style", "script")
}


class _Tag(NamedTuple):
    name: str
    start: int
    end: int
    attributes: dict[str, str]


def _head_tags(html: str) -> list[_Tag]:
    """Start tags of the head in order, with ``end`` past a text element's closing tag."""
    tags: list[_Tag] = []
    pos = html.find("<")
    while pos != -1:
        if html.startswith("<!--", pos):
            close = html.find("-->", pos + 4)
            if close == -1:
                break
            pos = html.find("<", close + 3)
            continue
        match = _TAG.match(html, pos)
        if match is None:
            pos = html.find("<", pos + 1)
            continue
        name = match[2].lower()
        if match[1]:
            if name == "head":
                break
            pos = html.find("<", match.end())
            continue
        if name not in _HEAD_ELEMENTS:
            break
        end = match.end()
        if name in _TEXT_ELEMENT_ENDS:
            closing = _TEXT_ELEMENT_ENDS[name].search(html, end)
            end = closing.end() if closing is not None else len(html)
        tags.append(_Tag(name, pos, end, _attributes(match[3])))
        pos = html.find("<", end)
    return tags


def _attributes(text: str) -> dict[str, str]:
    found: dict[str, str] = {}
    for match in _ATTRIBUTE.finditer(text):
        value = next((v for v in match.groups()[1:] if v is not None), "")
        found.setdefault(match[1].lower(), unescape(value))
    return found


def _newline(html: str) -> str:
    return "\r\n" if "\r\n" in html else "\n"


def _insert_after(html: str, anchor: _Tag, line: str) -> str:
    return html[: anchor.end] + _newline(html) + line + html[anchor.end :]


def _no_head() -> InvalidMemory:
    return InvalidMemory((Finding(code="head-missing", detail="no head to edit"),))


def set_meta(html: str, name: str, value: str) -> str:
    """Set scalar meta ``name`` to ``value``, rewriting or inserting exactly one element.

    Args:
        html: The file's text.
        name: A non-repeatable ``memhtml-*`` name from docs/format.md §2.
        value: The new value; whitespace runs collapsed, HTML-escaped on the way in.

    Returns:
        The edited text: the first such meta rewritten in place, or a new meta inserted after
        the nearest meta that precedes it in emission order (else before the nearest that
        follows it, else after the title).

    Raises:
        InvalidInput: ``name`` is unknown or repeatable, or ``value`` is blank.
        InvalidMemory: the file has no head element to anchor a new meta to.
    """
    if name not in m.SCALAR_METAS:
        raise InvalidInput(f"{name} is not a single-valued memhtml meta")
    # One element per line, as the renderer writes it: whitespace runs become single spaces.
    value = collapse_whitespace(value)
    if not value:
        raise InvalidInput(f"{name} needs a non-blank value")
    line = meta_line(name, value)
    tags = _head_tags(html)
    metas = [
        tag for tag in tags if tag.name == "meta" and tag.attributes.get("name") in m.META_RANK
    ]
    for tag in metas:
        if tag.attributes["name"] == name:
            return html[: tag.start] + line + html[tag.end :]
    rank = m.META_RANK[name]
    before = [tag for tag in metas if m.META_RANK[tag.attributes["name"]] < rank]
    after = [tag for tag in metas if m.META_RANK[tag.attributes["name"]] > rank]
    if before:
        return _insert_after(html, before[-1], line)
    if after:
        return html[: after[0].start] + line + _newline(html) + html[after[0].start :]
    anchor = _last(tags, "title") or _last(tags, "head")
    if anchor is None:
        raise _no_head()
    return _insert_after(html, anchor, line)


def _last(tags: list[_Tag], name: str) -> _Tag | None:
    return next((tag for tag in reversed(tags) if tag.name == name), None)


def add_link(html: str, rel: str, target: str) -> str:
    """Add ``<link rel="memhtml-REL" href="/TARGET">`` unless that edge is already there.

    Args:
        html: The file's text.
        rel: A relation name (``supports``, ``subtask_of``…). Endpoint rules are the caller's.
        target: The repo path of the other file, with or without a leading slash.

    Returns:
        The text with the link after the head's last link (else its last meta, else the
        title), or ``html`` unchanged when an equal (rel, target) link exists.

    Raises:
        InvalidInput: ``rel`` is not a relation or ``target`` is not a valid repo path.
        InvalidMemory: the file has no head element to anchor the link to.
    """
    if rel not in ALL_RELS:
        raise InvalidInput(f"{rel!r} is not a relation")
    path = target.lstrip("/")
    if link_target_of("/" + path) != path:
        raise InvalidInput("link target must be a repo path with no empty, . or .. segment")
    tags = _head_tags(html)
    links = [tag for tag in tags if tag.name == "link"]
    token = rel_to_token(rel)
    for tag in links:
        href = tag.attributes.get("href", "").strip(ASCII_WHITESPACE)
        if tag.attributes.get("rel", "").strip(ASCII_WHITESPACE) == token and (
            link_target_of(href) == path
        ):
            return html
    anchor = links[-1] if links else _last(tags, "meta") or _last(tags, "title")
    anchor = anchor or _last(tags, "head")
    if anchor is None:
        raise _no_head()
    return _insert_after(html, anchor, link_line(rel, path))


def mark_archived(html: str, at: str) -> str:
    """Stamp an archive move: ``status=archived``, ``memhtml-archived`` and ``updated`` = ``at``.

    Args:
        html: The file's text.
        at: The move instant; docs/format.md §5 (the program writes ``utc_stamp`` values).

    Raises:
        InvalidInput: ``at`` fails the datetime rule.
        InvalidMemory: the file has no head element to anchor a new meta to.
    """
    if not is_valid_datetime(at):
        raise InvalidInput("archive instant is not a valid datetime (docs/format.md §5)")
    html = set_meta(html, m.STATUS, ARCHIVED_STATUS)
    html = set_meta(html, m.UPDATED, at)
    return set_meta(html, m.ARCHIVED, at)


def _links_to(tags: list[_Tag], rel: str, target: str) -> list[_Tag]:
    """The head's ``<link>`` elements stating edge (``rel``, ``target``), in document order."""
    token = rel_to_token(rel)
    return [
        tag
        for tag in tags
        if tag.name == "link"
        and tag.attributes.get("rel", "").strip(ASCII_WHITESPACE) == token
        and link_target_of(tag.attributes.get("href", "").strip(ASCII_WHITESPACE)) == target
    ]


def _checked_edge(rel: str, target: str) -> str:
    if rel not in ALL_RELS:
        raise InvalidInput(f"{rel!r} is not a relation")
    path = target.lstrip("/")
    if link_target_of("/" + path) != path:
        raise InvalidInput("link target must be a repo path with no empty, . or .. segment")
    return path


def _without(html: str, tags: list[_Tag]) -> str:
    """``html`` with each tag cut out; a tag alone on its line takes the line with it."""
    for tag in sorted(tags, key=lambda t: t.start, reverse=True):
        start, end = tag.start, tag.end
        line_start = html.rfind("\n", 0, start) + 1
        line_end = html.find("\n", end)
        line_end = len(html) if line_end == -1 else line_end + 1
        before, after = html[line_start:start], html[end:line_end]
        if not before.strip(ASCII_WHITESPACE) and not after.strip(ASCII_WHITESPACE):
            start, end = line_start, line_end
        html = html[:start] + html[end:]
    return html


def drop_link(html: str, rel: str, target: str) -> str:
    """Remove every head ``<link>`` stating edge (``rel``, ``target``); the rest is untouched.

    Returns:
        The edited text, or ``html`` unchanged when no such link is there.

    Raises:
        InvalidInput: ``rel`` is not a relation or ``target`` is not a valid repo path.
    """
    path = _checked_edge(rel, target)
    return _without(html, _links_to(_head_tags(html), rel, path))


def retarget_link(html: str, rel: str, target: str, new_target: str) -> str:
    """Point the head's (``rel``, ``target``) link at ``new_target`` instead.

    Only the first such link's ``href`` attribute is rewritten (its other attributes and its
    place stay); repeats of the edge go, and so does the link itself when the file already
    states (``rel``, ``new_target``), because a second copy of an edge is no edge of its own.

    Returns:
        The edited text, or ``html`` unchanged when no (``rel``, ``target``) link is there.

    Raises:
        InvalidInput: ``rel`` is not a relation, or a target is not a valid repo path.
    """
    path = _checked_edge(rel, target)
    new_path = _checked_edge(rel, new_target)
    tags = _head_tags(html)
    found = _links_to(tags, rel, path)
    if not found or path == new_path:
        return html
    if _links_to(tags, rel, new_path):
        return _without(html, found)
    first, repeats = found[0], found[1:]
    html = _without(html, repeats)  # all after `first`, so its offsets still hold
    element = _TAG.match(html, first.start)
    if element is None:  # cannot happen: the scanner matched this tag at this offset
        raise AssertionError("head scan and tag pattern disagree")
    for attribute in _ATTRIBUTE.finditer(element[3]):
        if attribute[1].lower() == "href":
            href = f'href="{escape("/" + new_path)}"'
            start = element.start(3) + attribute.start()
            end = element.start(3) + attribute.end()
            return html[:start] + href + html[end:]
    raise AssertionError("a link matched by its href has an href")
