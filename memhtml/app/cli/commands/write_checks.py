"""Checks the committing commands make on their arguments before opening the store, shared
with the MCP server's write tools (``app/mcp/calls.py``) so both refuse alike.
"""

from __future__ import annotations

import shlex

from memhtml.domain.errors import InvalidInput


def checked_write_path(raw: str | None, flag: str = "--path") -> str | None:
    """The explicit path of a write, normalised; refused with the reason when unusable.

    docs/format.md §11 rule 1 lets a writer ignore an unusable path and place the memory itself;
    the command line and the MCP server refuse instead (issue 18), because a caller who named
    a path and found the memory elsewhere, with exit 0 and no word, had no way to notice.

    Raises:
        InvalidInput: The path could leave the repository or is not a memory path; the message
            says which rule it breaks.
    """
    from memhtml.domain.paths import HTML_SUFFIX, is_valid_explicit_path, normalize_path
    from memhtml.domain.placement import is_safe_path
    from memhtml.domain.vocabulary import PARA_BUCKETS

    if raw is None:
        return None
    path = normalize_path(raw)
    if not path or not is_safe_path(path):
        raise InvalidInput(f"{flag} must stay inside the repository, like areas/inbox/x.html")
    if is_valid_explicit_path(path):
        return path
    segments = path.split("/")
    buckets = ", ".join(f"{bucket}/" for bucket in PARA_BUCKETS)
    if segments[0] not in PARA_BUCKETS:
        reason = f"it must start with a PARA bucket ({buckets}), not {segments[0]}/"
    elif len(segments) < 2 or not segments[-1].removesuffix(HTML_SUFFIX):
        reason = "it must name a file inside the bucket, like areas/inbox/x.html"
    else:
        reason = f"a memory file's name ends in {HTML_SUFFIX}"
    raise InvalidInput(f"{flag} {raw} is not a memory path: {reason}")


class UnknownRelation(InvalidInput):
    """A relation outside the vocabulary, with the nearest names as runnable suggestions.

    Attributes:
        suggestions: ``memhtml link SRC REL DST`` with each near-miss name.
    """

    def __init__(self, message: str, suggestions: tuple[str, ...]) -> None:
        super().__init__(message)
        self.suggestions = suggestions


def checked_relation(src: str, rel: str, dst: str) -> str:
    """``rel`` when it is in the vocabulary a caller may link with.

    Raises:
        UnknownRelation: It is not; ``related`` suggests ``relates_to``.
    """
    from memhtml.app.cli.suggest import suggest
    from memhtml.domain.vocabulary import LINKABLE_RELS

    if rel in LINKABLE_RELS:
        return rel
    near = suggest((rel,), LINKABLE_RELS)
    message = f"rel must be one of {', '.join(LINKABLE_RELS)}, not {rel!r}"
    if near:
        message += f"; did you mean {' or '.join(near)}?"
    raise UnknownRelation(
        message, tuple(shlex.join(("memhtml", "link", src, name, dst)) for name in near)
    )


def check_article(claim: str | None, article_html: str | None) -> None:
    """Refuse a write or correction without exactly one of claim and article HTML.

    Raises:
        InvalidInput: Both or neither were given.
    """
    if (claim is None) == (article_html is None):
        raise InvalidInput("give exactly one of --claim and --article-html")
