"""Memory files as MCP resources: a paged listing and the two URI forms a client reads.

``memhtml://memory/<path>`` is the file as it is now in the working tree;
``memhtml://at/<commit>/<path>`` is the file in that commit's tree. Listing pages through
``Store.list`` (its defaults: active memories, tasks left out) and passes its cursor on as the
protocol's. Nothing here imports the SDK.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final
from urllib.parse import quote, unquote

import attrs

from memhtml.app.mcp.catalog import AT_URI_PREFIX, MEMORY_URI_PREFIX
from memhtml.domain.errors import InvalidInput

if TYPE_CHECKING:
    from memhtml.app.store import Store
    from memhtml.app.use_cases.memory_source import MemorySource

PAGE_SIZE: Final = 100
# Path characters left as they are in a URI: the separators of a repo path, and what the
# store's slugs use.
_PATH_SAFE: Final = "/-._~"


@attrs.frozen(kw_only=True)
class ResourceEntry:
    """One listed memory file."""

    uri: str
    name: str
    title: str
    description: str


@attrs.frozen(kw_only=True)
class ResourcePage:
    """One page of the listing and the cursor of the next (``None``: the last page)."""

    entries: tuple[ResourceEntry, ...]
    next_cursor: str | None


def memory_uri(path: str) -> str:
    """The ``memhtml://memory/…`` URI of a repo path."""
    return MEMORY_URI_PREFIX + quote(path, safe=_PATH_SAFE)


def list_page(store: Store, cursor: str | None) -> ResourcePage:
    """The page of memory files after ``cursor``.

    Raises:
        InvalidInput: A cursor this listing did not hand out.
    """
    from memhtml.app.use_cases.listing import ListRequest

    result = store.list(ListRequest(limit=PAGE_SIZE, cursor=cursor))
    entries = tuple(
        ResourceEntry(
            uri=memory_uri(item.path), name=item.path, title=item.title, description=item.gist
        )
        for item in result.files
    )
    return ResourcePage(entries=entries, next_cursor=result.next_cursor)


def read_uri(store: Store, uri: str) -> MemorySource:
    """The file a resource URI names.

    Raises:
        InvalidInput: Not one of this server's URI forms, a path escaping the store, or a
            commit that is not a sha.
        NotFound: No memory file there, or no such commit.
    """
    if uri.startswith(MEMORY_URI_PREFIX):
        return store.source(unquote(uri.removeprefix(MEMORY_URI_PREFIX)))
    if uri.startswith(AT_URI_PREFIX):
        commit, separator, path = uri.removeprefix(AT_URI_PREFIX).partition("/")
        if separator and commit:
            return store.source(unquote(path), commit=unquote(commit))
    raise InvalidInput(
        f"resource URIs are {MEMORY_URI_PREFIX}<path> or {AT_URI_PREFIX}<commit>/<path>"
    )
