"""Commit messages of the write path: ``memhtml(<op>): <subject>`` plus session trailers.

One rule for every mutating command (docs/cli-contract.md §3.1), so ``git log --oneline`` reads as a
list of what the agent did, each line short enough for any log viewer.
"""

from __future__ import annotations

import re
from typing import Final

from memhtml.domain.control_chars import strip_controls
from memhtml.domain.model import collapse_whitespace
from memhtml.domain.text import utf16_len, utf16_prefix

SUBJECT_MAX_UNITS: Final = 72
"""Ceiling of the text after ``memhtml(<op>): ``, in UTF-16 code units (docs/decisions.md §1)."""
ELLIPSIS: Final = "…"
UNTITLED_SUBJECT: Final = "(untitled)"
SESSION_TRAILER: Final = "Memhtml-Session"
PROMPT_TRAILER: Final = "Memhtml-Prompt"
REQUEST_TRAILER: Final = "Memhtml-Request"
"""Names the command invocation that made the commit, so a command run again after losing
the process that ran it (the warm helper killed mid-command) finds its own commit."""
REQUEST_ID_PATTERN: Final = re.compile(r"[A-Za-z0-9-]{1,64}")
_REQUEST_LINE: Final = re.compile(rf"^{REQUEST_TRAILER}: ({REQUEST_ID_PATTERN.pattern})$", re.M)
# ASCII: a value is blank only when git would see it blank. collapse_whitespace keeps U+00A0
# and other Unicode spaces (a session id may be one), which Unicode \S would not match, so a
# block of trailers was taken for prose and the request trailer went into a block of its own.
_TRAILER_LINE: Final = re.compile(r"[A-Za-z0-9-]+: \S.*", re.ASCII)

INIT_SUBJECT: Final = "scaffold the memory repository"
OP_INIT: Final = "init"
OP_WRITE: Final = "write"
OP_CORRECT: Final = "correct"
OP_ARCHIVE: Final = "archive"
OP_LINK: Final = "link"
OP_BATCH: Final = "batch"
OP_SYNC: Final = "sync"


def commit_subject_text(text: str) -> str:
    """The subject text: controls dropped, whitespace collapsed, cut to 72 units with ``…``,
    never empty.

    The ceiling counts the text after the ``memhtml(<op>): `` prefix: the prefix is fixed per
    operation, and counting it would give a ``batch`` title less room than a ``link`` one.
    Control characters are dropped because ``git log`` prints the subject raw to a terminal.
    """
    collapsed = collapse_whitespace(strip_controls(text))
    if not collapsed:
        return UNTITLED_SUBJECT
    if utf16_len(collapsed) <= SUBJECT_MAX_UNITS:
        return collapsed
    kept = utf16_prefix(collapsed, SUBJECT_MAX_UNITS - utf16_len(ELLIPSIS)).rstrip(" ")
    return kept + ELLIPSIS


def commit_message(
    op: str,
    subject: str,
    *,
    body: str | None = None,
    session_id: str | None = None,
    prompt_id: str | None = None,
) -> str:
    """The whole message: the subject line, an optional body, then the session trailers.

    Args:
        op: The operation in parentheses (``write``, ``correct``, ``batch``…).
        subject: The free text after the prefix; normalised by :func:`commit_subject_text`.
        body: A paragraph after the subject (a correction's reason); blank is absent;
            control characters are dropped, as from the subject and the trailers.
        session_id: Becomes ``Memhtml-Session: <id>`` (whitespace collapsed; blank is absent).
        prompt_id: Becomes ``Memhtml-Prompt: <id>``.
    """
    blocks = [f"memhtml({op}): {commit_subject_text(subject)}"]
    if body is not None and (kept := strip_controls(body).strip()):
        blocks.append(kept)
    trailers = [
        f"{name}: {value}"
        for name, raw in ((SESSION_TRAILER, session_id), (PROMPT_TRAILER, prompt_id))
        # A newline inside a trailer value would end the trailer block early.
        if raw is not None and (value := collapse_whitespace(strip_controls(raw)))
    ]
    if trailers:
        blocks.append("\n".join(trailers))
    return "\n\n".join(blocks) + "\n"


def archive_subject(path: str, reason: str) -> str:
    """``<path> — <reason>``, the archive command's subject text."""
    return f"{path} — {reason}"


def link_subject(rel: str, src: str, dst: str) -> str:
    """``<rel> <src> -> <dst>``, the link command's subject text."""
    return f"{rel} {src} -> {dst}"


def batch_subject(changed_ops: tuple[str, ...], single_write_title: str | None) -> str:
    """The subject of an ``apply`` commit from the ops that changed the tree, in order.

    One write alone gives its title; only writes give ``<n> memories``; otherwise ``<n> ops``
    (docs/cli-contract.md §3.2). ``1 ops`` is kept as docs/cli-contract.md §3.1 spells it rather
    than special-cased.

    Args:
        changed_ops: The op name (``write``, ``link``, ``archive``) of each op that changed
            the tree.
        single_write_title: The title of the write when it is the only changed op.
    """
    count = len(changed_ops)
    if count == 1 and changed_ops[0] == OP_WRITE and single_write_title is not None:
        return single_write_title
    if count and all(op == OP_WRITE for op in changed_ops):
        return f"{count} memories"
    return f"{count} ops"


def with_request(message: str, request_id: str | None) -> str:
    """``message`` with a ``Memhtml-Request: <id>`` trailer (``None``: unchanged): added to
    the trailer block that ends the message, so git still reads the session trailers, or as a
    block of its own; ``request_id`` matches :data:`REQUEST_ID_PATTERN`.

    Raises:
        ValueError: ``request_id`` does not match the pattern.
    """
    if request_id is None:
        return message
    if not REQUEST_ID_PATTERN.fullmatch(request_id):
        raise ValueError("a request id is 1-64 ASCII letters, digits or hyphens")
    text = message.rstrip("\n")
    blocks = text.split("\n\n")
    ends_with_trailers = len(blocks) > 1 and all(
        _TRAILER_LINE.fullmatch(line) for line in blocks[-1].split("\n")
    )
    joint = "\n" if ends_with_trailers else "\n\n"
    return f"{text}{joint}{REQUEST_TRAILER}: {request_id}\n"


def request_of(message: str) -> str | None:
    """The request id of a message's last block, or ``None``; an id written by
    :func:`with_request` is found whatever the message's text above it."""
    last = message.rstrip("\n").rsplit("\n\n", 1)[-1]
    found = _REQUEST_LINE.findall(last)
    return found[-1] if found else None
