"""A warm helper: one long-lived local process keeps the model loaded (and the program
imported) so that short command-line processes embed a query, or run a whole search, in
milliseconds instead of loading everything each time.

``client.HelperEmbedder`` is the embedding client (an ``EmbeddingModel``), ``commands`` the
client that forwards a whole command, ``server.serve`` the helper's loop, ``wire`` their
format and ``place`` their private folder. Neither side knows how the model is built or what
a command does: the composition root passes the embedder, the command runner and the function
that starts a helper. This package imports nothing on its own, so the console script's front
door can load ``commands`` without the embedding client's imports.
"""
