"""The program's name and one-line summary, shared by parsing, help and the manifest."""

from __future__ import annotations

from typing import Final

PROGRAM: Final = "memhtml"
SUMMARY: Final = "Long-term memory for AI agents, kept as a git repository of semantic HTML files."
