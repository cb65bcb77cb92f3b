"""memhtml: long-term memory for AI agents, kept as a git repository of semantic HTML files.

Importing this package loads nothing heavy: no database driver, no model, no numpy. Each
adapter is imported by the composition root only when a command needs it.
"""

__version__ = "0.1.0"
