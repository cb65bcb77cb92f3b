"""Who a commit is by: git's own resolution first, then a documented fallback.

The original tool failed ``init`` when no identity was configured; this build commits as the
fallback instead (docs/cli-contract.md §5) and never writes git config to make an identity appear.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final, Literal

import attrs
from dulwich.config import Config
from dulwich.objects import Commit

FALLBACK_NAME: Final = "memhtml"
# `.invalid` is reserved (RFC 2606): the address can never reach anybody by accident.
FALLBACK_EMAIL: Final = "memhtml@localhost.invalid"

IdentityKind = Literal["AUTHOR", "COMMITTER"]
# Characters that would break the `name <email>` line of a commit header.
_HEADER_BREAKERS: Final = str.maketrans("", "", "<>\n\r\x00")


@attrs.frozen(kw_only=True)
class Identity:
    """A commit author or committer."""

    name: str
    email: str

    def as_header(self) -> bytes:
        """The ``name <email>`` form a commit header holds."""
        return f"{self.name} <{self.email}>".encode()


FALLBACK_IDENTITY: Final = Identity(name=FALLBACK_NAME, email=FALLBACK_EMAIL)


def _clean(value: str | None) -> str | None:
    if value is None:
        return None
    cleaned = value.translate(_HEADER_BREAKERS).strip()
    return cleaned or None


def _configured(config: Config, name: str) -> str | None:
    try:
        raw = config.get((b"user",), name.encode("ascii"))
    except KeyError:
        return None
    return raw.decode("utf-8", errors="replace")


def resolve_identity(
    kind: IdentityKind, config: Config, env: Mapping[str, str], fallback: Identity
) -> Identity:
    """The identity git would use for ``kind``, else ``fallback``.

    ``GIT_<KIND>_NAME`` / ``GIT_<KIND>_EMAIL`` win over ``user.name`` / ``user.email`` from
    the config stack (repository, global, system). When a name or an email is still missing,
    the whole fallback is used, as docs/cli-contract.md §5 says: half a configured identity is
    not one.

    Args:
        kind: ``AUTHOR`` or ``COMMITTER``.
        config: The repository's config stack.
        env: The environment to read.
        fallback: Used when either part is missing.
    """
    name = _clean(env.get(f"GIT_{kind}_NAME")) or _clean(_configured(config, "name"))
    email = _clean(env.get(f"GIT_{kind}_EMAIL")) or _clean(_configured(config, "email"))
    if name is None or email is None:
        return fallback
    return Identity(name=name, email=email)


def sign_commit(
    commit: Commit,
    *,
    config: Config,
    env: Mapping[str, str],
    fallback: Identity,
    when: int,
    message: str,
) -> None:
    """Fill ``commit``'s author, committer, times (UTC), encoding and message, as every
    memhtml commit has them."""
    commit.author = resolve_identity("AUTHOR", config, env, fallback).as_header()
    commit.committer = resolve_identity("COMMITTER", config, env, fallback).as_header()
    commit.author_time = commit.commit_time = when
    commit.author_timezone = commit.commit_timezone = 0
    commit.encoding = b"UTF-8"
    commit.message = (message.rstrip("\n") + "\n").encode("utf-8")
