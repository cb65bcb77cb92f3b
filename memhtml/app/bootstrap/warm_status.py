"""``memhtml helper status|stop``: whether a warm helper serves this configuration, asked or
told to leave (``warm_helper.py`` starts and runs it)."""

from __future__ import annotations

from collections.abc import Mapping

import attrs

from memhtml.app.bootstrap import warm_key
from memhtml.app.bootstrap.config import read_embed_settings
from memhtml.app.bootstrap.warm_helper import (
    SERVED_BACKENDS,
    HelperSettings,
    read_helper_settings,
)
from memhtml.app.bootstrap.warm_key import ENV_EMBED_HELPER, helper_key


@attrs.frozen(kw_only=True)
class HelperStatus:
    """Where this configuration's helper is and whether one serves it.

    Attributes:
        enabled: ``MEMHTML_EMBED_HELPER`` is on and the backend loads a local model.
        running: A helper answered.
        pid: The answering helper's process id.
        socket: The socket path (``None`` when the private folder is unusable).
        log: The helper's log.
        idle_seconds: How long an idle helper stays.
        reason: Why the helper is not used, when it is not.
    """

    enabled: bool
    running: bool
    pid: int | None
    socket: str | None
    log: str | None
    idle_seconds: int
    reason: str | None


def helper_status(environ: Mapping[str, str], *, stop: bool = False) -> HelperStatus:
    """This configuration's helper, asked (``hello``) or told to leave (``stop``).

    Raises:
        InvalidInput: A variable holds a value it cannot take.
    """
    from memhtml.adapters.warm.client import ask_helper
    from memhtml.adapters.warm.place import UnsafePlace, helper_place

    settings = read_embed_settings(environ)
    helper = read_helper_settings(environ)
    reason: str | None = None
    if not warm_key.SUPPORTED:
        return _unusable("the warm helper needs a POSIX system (Unix sockets, fork)", helper)
    if settings.backend not in SERVED_BACKENDS and settings.backend != "off":
        reason = f"the {settings.backend} backend's commands run in their own process"
    elif not helper.enabled:
        reason = f"{ENV_EMBED_HELPER} is off"
    try:
        place = helper_place(helper_key(environ), environ)
    except UnsafePlace as e:
        return _unusable(str(e), helper)
    # A helper started before the switch was turned off still answers, and can be stopped.
    answer = ask_helper(place, "stop" if stop else "hello")
    pid = answer.get("pid") if answer else None
    return HelperStatus(
        enabled=reason is None,
        running=answer is not None,
        pid=pid if isinstance(pid, int) else None,
        socket=str(place.socket),
        log=str(place.log),
        idle_seconds=helper.idle_seconds,
        reason=reason,
    )


def _unusable(reason: str, helper: HelperSettings) -> HelperStatus:
    """No helper can live here: not enabled, none running, no files."""
    return HelperStatus(
        enabled=False,
        running=False,
        pid=None,
        socket=None,
        log=None,
        idle_seconds=helper.idle_seconds,
        reason=reason,
    )
