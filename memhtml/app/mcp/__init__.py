"""``memhtml mcp``: the memory store served over the Model Context Protocol.

Pure modules (``params``, ``catalog*``, ``calls``, ``outcomes``, ``resources``) need only
memhtml itself, so the manifest can list the tools without the SDK installed. The modules that
speak the protocol (``server``, ``transports``) import the ``mcp`` SDK, an optional extra
(``pip install 'memhtml[mcp]'``); nothing imports them until ``memhtml mcp`` runs.
"""
