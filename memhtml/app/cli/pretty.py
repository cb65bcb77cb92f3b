"""``--pretty``: any result rendered for a person, as aligned key/value lines and tables.

Generic on purpose: it knows JSON shapes, not response types, so a new command renders well
without code of its own. Objects become aligned ``key  value`` lines (nested objects indent),
arrays of flat objects become tables, other arrays become ``-`` items, and long text wraps.
Every string and key is printed with its control characters escaped (``\x1b``), so memory
text can never drive the terminal it is shown on.
"""

from __future__ import annotations

import functools
import re
import textwrap
from collections.abc import Mapping
from typing import Final

from memhtml.app.cli.envelope import JsonValue
from memhtml.domain.control_chars import escape_controls

WIDTH: Final = 100
# Wrapping never squeezes text narrower than this, however deep the nesting.
MIN_TEXT_WIDTH: Final = 30
# A table cell wider than this is cut with an ellipsis: one long snippet would otherwise push
# every other column off the screen, and the full text is one `--json` away. Paths are never
# cut (PATH_KEYS): a path is there to be copied into the next command.
MAX_CELL_WIDTH: Final = 40
PATH_KEYS: Final = frozenset({"path", "href", "src", "dst", "root"})
STEP: Final = "  "
GAP: Final = "  "
NULL_TEXT: Final = "—"
EMPTY_LIST_TEXT: Final = "(none)"
EMPTY_OBJECT_TEXT: Final = "(empty)"
ELLIPSIS: Final = "…"

# Runs of ASCII spaces: the only whitespace a printable text can hold.
SPACES: Final = re.compile("( +)")

Scalar = None | bool | int | float | str


def render_success(response_type: str, data: JsonValue) -> str:
    """The response type on the first line, then ``data``."""
    return f"{response_type}\n{render(data)}"


def render_failure(envelope: JsonValue) -> str:
    """A failure envelope without its ``apiVersion``: error, code and suggestions."""
    if isinstance(envelope, dict):
        envelope = {key: value for key, value in envelope.items() if key != "apiVersion"}
    return render(envelope)


def render(value: JsonValue) -> str:
    """``value`` as newline-terminated text with no trailing spaces on any line."""
    return "\n".join(line.rstrip() for line in _block(value, "")) + "\n"


def _block(value: JsonValue, indent: str) -> list[str]:
    if isinstance(value, dict):
        return _object(value, indent)
    if isinstance(value, list):
        return _array(value, indent)
    return [indent + line for line in _wrap(_scalar_text(value), _text_width(indent))]


def _object(value: Mapping[str, JsonValue], indent: str) -> list[str]:
    if not value:
        return [indent + EMPTY_OBJECT_TEXT]
    value = {_shown_key(key): item for key, item in value.items()}
    key_width = max(len(key) for key in value)
    lines: list[str] = []
    for key, item in value.items():
        if _is_inline(item):
            lead = indent + key.ljust(key_width) + GAP
            wrapped = _wrap(_inline_text(item), _text_width(lead))
            lines.append(lead + wrapped[0])
            lines.extend(" " * len(lead) + line for line in wrapped[1:])
        else:
            lines.append(f"{indent}{key}:")
            lines.extend(_block(item, indent + STEP))
    return lines


def _array(value: list[JsonValue], indent: str) -> list[str]:
    if not value:
        return [indent + EMPTY_LIST_TEXT]
    if all(_is_flat_object(item) for item in value):
        return _table([item for item in value if isinstance(item, dict)], indent)
    lines: list[str] = []
    for item in value:
        # Each item renders one step deeper; its first line then trades the step for "- ".
        inner = _block(item, indent + STEP)
        lines.append(indent + "- " + inner[0][len(indent) + len(STEP) :])
        lines.extend(inner[1:])
    return lines


def _table(rows: list[dict[str, JsonValue]], indent: str) -> list[str]:
    rows = [{_shown_key(key): item for key, item in row.items()} for row in rows]
    columns: list[str] = []
    for row in rows:
        columns.extend(key for key in row if key not in columns)
    texts = [[_cell_text(row.get(column, "")) for column in columns] for row in rows]
    caps = [
        max(len(t[i]) for t in texts) if _is_path_key(column) else MAX_CELL_WIDTH
        for i, column in enumerate(columns)
    ]
    # The last column may take whatever width the others leave, so a table of short keys and
    # one description column shows the descriptions whole.
    others = sum(
        min(caps[i], max(len(columns[i]), *(len(t[i]) for t in texts)))
        for i in range(len(columns) - 1)
    )
    caps[-1] = max(caps[-1], WIDTH - len(indent) - others - len(GAP) * (len(columns) - 1))
    cells = [[_cut(text, cap) for text, cap in zip(row, caps, strict=True)] for row in texts]
    widths = [
        max(len(column), *(len(line[i]) for line in cells)) for i, column in enumerate(columns)
    ]

    def line(texts: list[str]) -> str:
        return indent + GAP.join(
            text.ljust(width) for text, width in zip(texts, widths, strict=True)
        )

    return [line(columns), line(["-" * width for width in widths]), *(line(c) for c in cells)]


def _is_path_key(key: str) -> bool:
    """``path``, ``href``… and any ``…Path`` key (``archivedPath``, ``existingPath``)."""
    return key in PATH_KEYS or key.endswith("Path")


def _cell_text(value: JsonValue) -> str:
    return " ".join(_scalar_text(value).split()) if _is_scalar(value) else _inline_text(value)


def _cut(text: str, width: int) -> str:
    if len(text) > width:
        return text[: width - len(ELLIPSIS)] + ELLIPSIS
    return text


def _is_scalar(value: JsonValue) -> bool:
    return not isinstance(value, dict | list)


def _is_inline(value: JsonValue) -> bool:
    """Fits after its key on one (wrapped) line: a scalar, an empty container, or scalars."""
    if isinstance(value, dict):
        return not value
    if isinstance(value, list):
        return all(_is_scalar(item) for item in value)
    return True


def _is_flat_object(value: JsonValue) -> bool:
    return isinstance(value, dict) and bool(value) and all(_is_scalar(v) for v in value.values())


def _inline_text(value: JsonValue) -> str:
    if isinstance(value, dict):
        return EMPTY_OBJECT_TEXT
    if isinstance(value, list):
        return ", ".join(_scalar_text(item) for item in value) if value else EMPTY_LIST_TEXT
    return _scalar_text(value)


def _scalar_text(value: JsonValue) -> str:
    if value is None:
        return NULL_TEXT
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else format(value, ".6g")
    if isinstance(value, str):
        return _shown(value)
    if isinstance(value, int):
        return str(value)
    return _inline_text(value)


def _shown(text: str) -> str:
    """``escape_controls(text)``, skipped for printable text (which holds no control)."""
    return text if text.isprintable() else escape_controls(text)


@functools.lru_cache(maxsize=1024)
def _shown_key(key: str) -> str:
    """A key as shown; keys repeat on every row, so each is escaped once per process."""
    return _shown(key)


def _text_width(lead: str) -> int:
    return max(MIN_TEXT_WIDTH, WIDTH - len(lead))


def _wrap(text: str, width: int) -> list[str]:
    """Wrap each line of ``text`` on its own, keeping blank lines; never returns no lines."""
    if _fits(text, width):
        return [text]
    if text.isprintable():
        return _spaced_lines(text, width) or [""]
    lines: list[str] = []
    for paragraph in text.split("\n"):
        lines.extend(
            # A word longer than the line (a path, a sha) overflows rather than breaking: a
            # path split over two lines cannot be copied.
            textwrap.wrap(
                paragraph,
                width,
                break_on_hyphens=False,
                break_long_words=False,
                replace_whitespace=True,
            )
            or [""]
        )
    return lines


def _fits(text: str, width: int) -> bool:
    """``text`` is one line ``textwrap`` would return unchanged: short enough, printable (so
    no tab, newline or other whitespace it would replace; a space is printable), and without a
    space at either end for it to drop. Most values are, and wrapping each costs more than the
    rest of the rendering."""
    return 0 < len(text) <= width and text.isprintable() and text[0] != " " and text[-1] != " "


def _spaced_lines(text: str, width: int) -> list[str]:
    """``textwrap.wrap(text, width)`` with the options ``_wrap`` uses, for text whose only
    whitespace is the ASCII space (printable text), without textwrap's per-call set-up.

    Words fill each line greedily; the spaces between two lines are dropped, and so are those
    at the end of any line, but not those that open the first; a word longer than the line
    stands alone on it.
    """
    chunks = [chunk for chunk in SPACES.split(text) if chunk]
    chunks.reverse()
    lines: list[str] = []
    while chunks:
        if lines and chunks[-1][0] == " ":
            chunks.pop()
        line: list[str] = []
        length = 0
        while chunks and length + len(chunks[-1]) <= width:
            chunk = chunks.pop()
            line.append(chunk)
            length += len(chunk)
        if chunks and not line and len(chunks[-1]) > width:
            line.append(chunks.pop())
        if line and line[-1][0] == " ":
            line.pop()
        if line:
            lines.append("".join(line))
    return lines
