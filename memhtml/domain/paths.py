"""Where a memory lives: PARA placement, slugs, collision suffixes, archive paths
(docs/format.md §11).

Paths are repo-relative, ``/``-separated, with no leading slash.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from typing import Final

from memhtml.domain.vocabulary import ARC_TYPE, ARCHIVE_BUCKET, PARA_BUCKETS, TASK_TYPE

SLUG_MAX: Final = 80
UNTITLED: Final = "untitled"
HTML_SUFFIX: Final = ".html"
# Files a `publish` step generates; never memories, at any depth.
GENERATED_NAMES: Final[frozenset[str]] = frozenset({"index.html", "sitemap.xml"})
# Types that go under resources/<first tag>/ when they carry a tag: reference knowledge.
TAG_PLACED_TYPES: Final[frozenset[str]] = frozenset({"semantic", "procedural", "precedent"})
EPISODIC_TYPE: Final = "episodic"

_NOT_SLUG = re.compile(r"[^a-z0-9]+")
_ARCHIVE_PREFIX = re.compile(r"^archive/\d{4,}/")


def slugify(text: str, max_len: int = SLUG_MAX) -> str:
    """NFKD, drop combining marks, lowercase, runs outside ``[a-z0-9]`` → ``-``, trimmed.

    An empty result is ``untitled``; a long one is cut to ``max_len`` and re-trimmed.
    """
    decomposed = unicodedata.normalize("NFKD", text)
    stripped = "".join(ch for ch in decomposed if unicodedata.category(ch) != "Mn")
    slug = _NOT_SLUG.sub("-", stripped.lower()).strip("-")
    if not slug:
        return UNTITLED
    return slug[:max_len].rstrip("-") or UNTITLED


def with_collision_suffix(slug: str, n: int) -> str:
    """The n-th (n ≥ 2) collision variant of ``slug``: stem cut to fit ``-n`` within 80.

    If cutting and re-trimming would rebuild the original slug (a slug that itself ends in
    ``-<n>``), one more character is cut so the variant never equals its source.
    """
    if n < 2:
        raise ValueError("collision suffixes start at 2")
    suffix = f"-{n}"
    keep = SLUG_MAX - len(suffix)
    candidate = slug[:keep].rstrip("-") + suffix
    while candidate == slug and keep > 0:
        keep -= 1
        candidate = slug[:keep].rstrip("-") + suffix
    return candidate


def path_segments(path: str) -> tuple[str, ...] | None:
    """Split a repo path; None when any segment is empty, ``.`` or ``..``."""
    segments = tuple(path.split("/"))
    if any(seg in {"", ".", ".."} for seg in segments):
        return None
    return segments


def normalize_path(path: str) -> str:
    """Strip leading slashes, collapse repeated slashes, drop a trailing slash."""
    return "/".join(seg for seg in path.split("/") if seg)


def is_valid_explicit_path(path: str) -> bool:
    """A caller-chosen path: bucket first, ≥ 2 segments, ends ``.html``, no dot segments."""
    segments = path_segments(normalize_path(path))
    return (
        segments is not None
        and len(segments) >= 2
        and segments[0] in PARA_BUCKETS
        and segments[-1].endswith(HTML_SUFFIX)
        and len(segments[-1]) > len(HTML_SUFFIX)
    )


def is_indexable_path(path: str) -> bool:
    """A ``.html`` file under a PARA bucket whose name is not a generated one."""
    segments = path_segments(path)
    return (
        segments is not None
        and len(segments) >= 2
        and segments[0] in PARA_BUCKETS
        and segments[-1].endswith(HTML_SUFFIX)
        and segments[-1] not in GENERATED_NAMES
    )


def placement_dir(
    memory_type: str, *, workspace: str | None = None, tags: Sequence[str] = ()
) -> str:
    """The folder a new memory goes to (rules 2–7 of docs/format.md §11; first match wins).

    Placement never routes to ``resources/people/`` (docs/decisions.md §13): a person record is
    written with an explicit path, so a memory that merely names a person keeps its salience.
    """
    ws = slugify(workspace) if workspace and workspace.strip() else None
    if memory_type == ARC_TYPE:
        return "areas/arcs"
    if memory_type == TASK_TYPE:
        return f"projects/{ws}/tasks" if ws else "areas/inbox/tasks"
    if ws:
        return f"projects/{ws}"
    first_tag = next((t for t in tags if t.strip()), None)
    if memory_type in TAG_PLACED_TYPES and first_tag is not None:
        return f"resources/{slugify(first_tag)}"
    return "areas/inbox"


def file_name(title: str, memory_type: str, write_date: str, collision: int = 1) -> str:
    """``<slug(title)>.html``; episodic memories get a ``YYYYMMDD-`` prefix outside the budget.

    Args:
        title: The memory's title.
        memory_type: Its type; only ``episodic`` changes the name.
        write_date: The UTC write date as ``YYYY-MM-DD``.
        collision: 1 for the plain name, n ≥ 2 for the n-th collision variant.
    """
    slug = slugify(title)
    if collision > 1:
        slug = with_collision_suffix(slug, collision)
    prefix = write_date.replace("-", "") + "-" if memory_type == EPISODIC_TYPE else ""
    return f"{prefix}{slug}{HTML_SUFFIX}"


def archive_path(path: str, year: int) -> str:
    """Where ``archive`` moves a file: ``archive/<YYYY>/<original path>``."""
    return f"{ARCHIVE_BUCKET}/{year:04d}/{path}"


def origin_path(path: str) -> str | None:
    """Inverse of :func:`archive_path`: strips exactly one ``archive/<YYYY>/`` prefix, else None."""
    match = _ARCHIVE_PREFIX.match(path)
    return path[match.end() :] if match else None


def is_archived_path(path: str) -> bool:
    """A file is archived iff its path is under ``archive/``, whatever its status meta says."""
    return path.split("/", 1)[0] == ARCHIVE_BUCKET


def chunk_owner_order(path: str) -> tuple[bool, str]:
    """Sort key of the files that hold one body, best owner of its shared chunks first: a live
    memory before an archived copy, then the lowest path (docs/index-schema.md §3.3)."""
    return (is_archived_path(path), path)


def para_of(path: str) -> str:
    """The PARA bucket: the first path segment."""
    return path.split("/", 1)[0]


def workspace_of(path: str) -> str | None:
    """The directory directly under ``projects/``, else None."""
    segments = path.split("/")
    if len(segments) >= 3 and segments[0] == "projects":
        return segments[1]
    return None
