"""Errors the application layer raises: conditions only a use case or the command line can see.

The domain and port errors stay where they are (``memhtml.domain.errors``,
``memhtml.ports.errors``); the command line maps all of them to ``ERR_*`` codes in one table
(``memhtml.app.cli.errors``).
"""

from __future__ import annotations

from collections.abc import Mapping

from memhtml.domain.errors import InvalidInput, MemhtmlError


class RepoRequired(MemhtmlError):
    """No usable memory repository: the root may not come from the environment, or the root is
    not an initialized memhtml repository.

    Attributes:
        root: The resolved root, when there was one (``None`` when only ``--repo`` may name it).
        suggestions: Runnable next steps, e.g. ``memhtml init --repo /path``.
    """

    def __init__(self, message: str, *, root: str | None, suggestions: tuple[str, ...]) -> None:
        super().__init__(message)
        self.root = root
        self.suggestions = suggestions


class MissingArgument(InvalidInput):
    """A required value is absent (an ``apply`` line without ``title``…).

    A subclass of ``InvalidInput`` so a library caller that catches malformed input catches this
    too; the command line tells the two apart (``ERR_MISSING_ARGUMENT`` vs ``ERR_INVALID_FLAG``).
    """


class DirtyTree(MemhtmlError):
    """A command must change paths that carry uncommitted edits; committing would sweep them in.

    Attributes:
        paths: The repo-relative paths with uncommitted edits, sorted.
    """

    def __init__(self, paths: tuple[str, ...]) -> None:
        self.paths = paths
        listed = ", ".join(paths) or "(none named)"
        super().__init__(f"uncommitted edits in the paths this command must change: {listed}")


class DiscriminationFailed(MemhtmlError):
    """The discrimination eval ran and its gate failed (docs/evaluation.md)."""


class UnknownTool(InvalidInput):
    """An MCP call names no tool of the server: the protocol's unknown command.

    A subclass of ``InvalidInput`` for library callers; the error table gives it
    ``ERR_UNKNOWN_COMMAND``, the code an unknown command gets on the command line.
    """


class ExtraMissing(MemhtmlError):
    """Something asked for needs an optional extra that is not installed (``memhtml[mcp]``,
    ``memhtml[e5]``).

    Attributes:
        extra: The extra's name.
        suggestions: The install command.
    """

    def __init__(self, needed_by: str, extra: str, module: str) -> None:
        """Say what needs which extra, and how to install it.

        Args:
            needed_by: What needs it, as the user typed it: ``memhtml mcp``, ``MEMHTML_EMBED=e5``.
            extra: The extra's name.
            module: The importable package that is missing.
        """
        self.extra = extra
        self.suggestions = (f"pip install 'memhtml[{extra}]'",)
        super().__init__(
            f"{needed_by} needs the optional {extra!r} extra, and {module!r} is not "
            f"installed: pip install 'memhtml[{extra}]'"
        )


class ReportedFailure(MemhtmlError):
    """A command ran to its end and its outcome is a failure the caller must act on.

    The outcome itself rides along: the command line prints it as the failure envelope's
    ``detail`` (docs/cli-contract.md §1), so nothing the success envelope said is lost.

    Attributes:
        detail: The command's result data, shaped as its success envelope's ``data``.
        suggestions: Runnable next steps.
    """

    def __init__(
        self, message: str, *, detail: Mapping[str, object], suggestions: tuple[str, ...] = ()
    ) -> None:
        super().__init__(message)
        self.detail = detail
        self.suggestions = suggestions


class BatchAborted(ReportedFailure):
    """An atomic ``apply`` stopped at a refused op and wrote nothing; ``detail`` holds every
    op's result."""


class StoreUnhealthy(ReportedFailure):
    """``doctor`` found something to act on; ``detail`` holds the whole report."""


class FactConflict(MemhtmlError):
    """``--on-conflict fail``: a written memory states a live memory's relation with other
    values (``app/use_cases/conflicts``); nothing is written for it.

    Attributes:
        path: Where the refused memory would have been written.
        conflicts: The live memories it disagrees with, by path.
    """

    def __init__(self, path: str, conflicts: tuple[str, ...]) -> None:
        self.path = path
        self.conflicts = conflicts
        listed = ", ".join(conflicts)
        super().__init__(
            f"{path} would state the relation of {listed} with other values; correct the older "
            "memory, or write with --on-conflict report"
        )


class NearDuplicateFound(MemhtmlError):
    """``--on-near-duplicate fail``: a written memory's first chunk is at or above the floor's
    similarity to a live memory's (``app/use_cases/near_duplicates``); nothing is written for it.

    Attributes:
        path: Where the refused memory would have been written.
        near: The live memories it nearly repeats, most similar first.
    """

    def __init__(self, path: str, near: tuple[str, ...]) -> None:
        self.path = path
        self.near = near
        listed = ", ".join(near)
        super().__init__(
            f"{path} would nearly repeat {listed}; correct or link the existing memory, or "
            "write with --on-near-duplicate report"
        )
