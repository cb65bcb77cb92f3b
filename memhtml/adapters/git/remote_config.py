"""Remote URLs in the repository's configuration, and the one way they are ever shown.

A remote URL can carry a secret (``https://user:token@host/repo``, ``https://token@host/…``,
``?access_token=…``). The transport needs it whole; everything a person or a log can see gets
:func:`redact`'s form instead, and errors raised here never quote the transport's own text.
"""

from __future__ import annotations

import re
from typing import Final
from urllib.parse import urlsplit, urlunsplit

from dulwich.config import ConfigFile
from dulwich.repo import Repo

from memhtml.ports.git_remote import SYNC_BRANCH

REMOTE_SECTION: Final = b"remote"
URL_KEY: Final = b"url"
FETCH_KEY: Final = b"fetch"
HIDDEN: Final = "***"
BRANCH_REF: Final = f"refs/heads/{SYNC_BRANCH}".encode()
# user:password@ in any text (an error message, a remote's status line).
_USERINFO: Final = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*://)[^/@\s]*@")
# Web schemes put tokens in the user part alone; ssh and git name a login there.
_SECRET_USER_SCHEMES: Final = frozenset({"http", "https", "ftp", "ftps"})


def redact(url: str) -> str:
    """``url`` with anything secret replaced by ``***``: a password, a web URL's user part
    (often a token) and a query string. A local path or an scp-like ``user@host:path`` has
    none and is returned as is."""
    if "://" not in url:
        return url
    try:
        parts = urlsplit(url)
    except ValueError:
        return scrub(url)
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, _, host = netloc.rpartition("@")
        secret = ":" in userinfo or parts.scheme.lower() in _SECRET_USER_SCHEMES
        netloc = f"{HIDDEN}@{host}" if secret else netloc
    query = HIDDEN if parts.query else ""
    return urlunsplit((parts.scheme, netloc, parts.path, query, ""))


def scrub(text: str) -> str:
    """Any ``scheme://user:pass@`` inside free text reduced to ``scheme://***@``."""
    return _USERINFO.sub(lambda m: f"{m.group('scheme')}{HIDDEN}@", text)


def remote_url(repo: Repo, name: str) -> str | None:
    """The configured URL of remote ``name`` (the repository's own config), else None."""
    try:
        raw = repo.get_config().get((REMOTE_SECTION, name.encode("utf-8")), URL_KEY)
    except KeyError:
        return None
    return raw.decode("utf-8")


def write_remote(repo: Repo, name: str, url: str) -> bool:
    """Point remote ``name`` at ``url`` with git's usual fetch refspec; True if it changed."""
    config: ConfigFile = repo.get_config()
    section = (REMOTE_SECTION, name.encode("utf-8"))
    refspec = f"+refs/heads/*:refs/remotes/{name}/*".encode()
    wanted = ((URL_KEY, url.encode("utf-8")), (FETCH_KEY, refspec))
    changed = False
    for key, value in wanted:
        try:
            current = config.get(section, key)
        except KeyError:
            current = None
        if current != value:
            config.set(section, key, value)
            changed = True
    if changed:
        config.write_to_path()
    return changed


def tracking_ref(name: str) -> bytes:
    """``refs/remotes/<name>/main``."""
    return f"refs/remotes/{name}/{SYNC_BRANCH}".encode()
