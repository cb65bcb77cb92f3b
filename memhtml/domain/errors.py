"""Errors the domain raises. Expected outcomes are return values; these are the exceptional ones.

The command line maps each class to one stable ``ERR_*`` code at its edge, so nothing here
knows about exit codes or JSON.
"""

from __future__ import annotations

from memhtml.domain.findings import Finding


class MemhtmlError(Exception):
    """Base of every error memhtml raises on purpose."""


class InvalidMemory(MemhtmlError):
    """A memory file (or the inputs to render one) breaks the format's constraints.

    Carries every violation found in one pass, never only the first, so a writer can fix
    them all at once. The message gives each violation's code and detail (``file-too-large:
    file is 5220511 bytes; the limit is 131072``): a code alone does not say what to fix, and
    a finding's detail never quotes memory text.
    """

    def __init__(self, violations: tuple[Finding, ...], warnings: tuple[Finding, ...] = ()):
        self.violations = violations
        self.warnings = warnings
        described = " | ".join(f"{v.code}: {v.detail}" if v.detail else v.code for v in violations)
        super().__init__(described or "invalid memory")


class InvalidInput(MemhtmlError):
    """A caller-supplied value is malformed (a facet without ``=``, a non-ISO instant…)."""


class NotFound(MemhtmlError):
    """No memory exists at the path the caller named."""


class DuplicateContent(MemhtmlError):
    """The content already lives in an active non-task memory."""


class Conflict(MemhtmlError):
    """The target changed or is occupied; retrying blindly could lose a write."""
