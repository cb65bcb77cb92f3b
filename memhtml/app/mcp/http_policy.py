"""Who may reach the HTTP server: loopback by default, anything else only with a bearer token.

A memory holds whatever agents told it, so serving it beyond the machine without a secret
would hand it to anyone on the network. ``MEMHTML_MCP_TOKEN`` configures the token; once set,
every request must carry ``Authorization: Bearer <token>``, loopback included, and one without
it gets 401 before the MCP layer sees it.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
from collections.abc import Awaitable, Callable, Mapping, MutableMapping
from typing import Any, Final

from memhtml.app.cli.environment import ENV_MCP_TOKEN
from memhtml.domain.errors import InvalidInput

LOOPBACK_NAMES: Final = frozenset({"localhost"})
BEARER: Final = b"bearer "

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
Asgi = Callable[[Scope, Receive, Send], Awaitable[None]]


def is_loopback(host: str) -> bool:
    """Whether ``host`` (a name or an address) only listens on this machine."""
    if host.lower() in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def configured_token(environ: Mapping[str, str]) -> str | None:
    """The bearer token from ``MEMHTML_MCP_TOKEN``; ``None`` when unset or blank."""
    return environ.get(ENV_MCP_TOKEN, "").strip() or None


def check_bind(host: str, token: str | None) -> None:
    """Refuse a non-loopback ``host`` when no token is configured.

    Raises:
        InvalidInput: The host reaches beyond this machine and nothing guards it.
    """
    if token is None and not is_loopback(host):
        raise InvalidInput(
            f"--host {host} is reachable from other machines; set {ENV_MCP_TOKEN} to a secret "
            "so that requests must carry it, or serve on 127.0.0.1"
        )


class BearerGate:
    """ASGI middleware: HTTP requests without ``Authorization: Bearer <token>`` get 401.

    Lifespan events pass through untouched. The comparison takes constant time.
    """

    def __init__(self, app: Asgi, token: str) -> None:
        self._app = app
        self._expected = BEARER + token.encode("utf-8")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("type") != "http" or self._authorized(scope):
            await self._app(scope, receive, send)
            return
        body = json.dumps({"error": "missing or wrong bearer token", "code": 401}).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 401,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"www-authenticate", b"Bearer"),
                    (b"content-length", str(len(body)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})

    def _authorized(self, scope: Scope) -> bool:
        for name, value in scope.get("headers", ()):
            if name.lower() == b"authorization":
                scheme, _, secret = bytes(value).partition(b" ")
                given = scheme.lower() + b" " + secret.strip()
                return hmac.compare_digest(given, self._expected)
        return False
