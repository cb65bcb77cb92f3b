"""The ``memhtml`` commands, one module per command group (docs/cli-contract.md §2).

Each module's ``register(group)`` adds its commands; ``memhtml.app.cli.app.REGISTRARS`` lists
each module with the commands it adds, and imports it when one of them is first used. Modules
here import click and the framework only at import time: the use cases, the composition root
and every adapter are imported inside the command bodies, so printing the manifest never loads
SQLite, git, HTML parsing or a model.
"""
