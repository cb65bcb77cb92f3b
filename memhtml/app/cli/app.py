"""The root group, the one command table, and the entry point that keeps the stdout contract.

Every invocation prints exactly one newline-terminated envelope on stdout, whatever happens:
success, a usage error, an unknown command, ``--help`` in a pipe, or a crash. Logs and
tracebacks go to stderr. Exit 0 on success, 2 on a usage error, 1 on a runtime failure.

Adding commands: a command module defines ``register(group)`` that adds its commands (or a
subgroup such as ``index``) to the group, and is listed in ``REGISTRARS`` as a ``LazyModule``
naming those commands (imported on first use; ``command_table``). Its commands use
``memhtml.app.cli.output.emits`` and import adapters inside the command body, so that
``import memhtml.app.cli`` stays free of database drivers, git, HTML parsing and models.
"""

from __future__ import annotations

import os
import sys
import traceback
from collections.abc import Callable, Sequence
from typing import Any, Final, NoReturn

import click

from memhtml.app.cli.command_table import LazyCommands, LazyModule
from memhtml.app.cli.front_door import COMPLETE_VAR, EXIT_OK, reader_gone, stdout_is_tty
from memhtml.app.cli.global_options import REPO, ScannedArgs, scan_arguments
from memhtml.app.cli.logs import configure_logging
from memhtml.app.cli.program import PROGRAM, SUMMARY
from memhtml.app.cli.state import CliState
from memhtml.app.cli.stdout import EnvelopeWriter

Registrar = Callable[[click.Group], None]
_CLI: Final = "memhtml.app.cli"
_COMMANDS: Final = f"{_CLI}.commands"

# The one command table: parsing, help and the manifest all read the group these fill. A
# LazyModule's module is imported when one of its commands is first asked for
# (command_table), so a command loads its own module and no other.
REGISTRARS: Final[tuple[Registrar, ...]] = (
    LazyModule(f"{_CLI}.manifest", ("manifest",)),
    LazyModule(f"{_CLI}.help", ("help",)),
    LazyModule(f"{_COMMANDS}.store", ("init", "write", "correct", "archive", "link", "apply")),
    LazyModule(f"{_COMMANDS}.store_reads", ("read", "neighbors", "list", "reinforce")),
    LazyModule(f"{_COMMANDS}.retrieval", ("search", "recall")),
    LazyModule(f"{_COMMANDS}.index", ("index",)),
    LazyModule(f"{_COMMANDS}.maintenance", ("doctor", "state")),
    LazyModule(f"{_COMMANDS}.evaluation", ("eval",)),
    LazyModule(f"{_COMMANDS}.mcp_serve", ("mcp",)),
    LazyModule(f"{_COMMANDS}.trace", ("trace",)),
    LazyModule(f"{_COMMANDS}.sync", ("sync", "clone")),
    LazyModule(f"{_COMMANDS}.completion", ("completion",)),
    LazyModule(f"{_COMMANDS}.helper", ("helper",)),
)


class NoEnvelope(RuntimeError):
    """A command returned without printing its result: it bypassed the output decorator."""


class RootGroup(click.Group):
    """The ``memhtml`` group; its ``main`` wraps click's parsing in the stdout contract."""

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        windows_expand_args: bool = True,
        **extra: Any,
    ) -> NoReturn:
        """Run one invocation and exit with its status.

        Click's own standalone handling (plain-text errors, help on stdout) is never used,
        whatever ``standalone_mode`` says: it would break the one-envelope contract. The one
        exception is a shell asking for completions (``_MEMHTML_COMPLETE`` set by the script
        ``memhtml completion`` prints): that is click's protocol with the shell, not a command.
        """
        instruction = os.environ.get(complete_var or COMPLETE_VAR)
        if instruction:
            from click.shell_completion import shell_complete

            sys.exit(shell_complete(self, {}, PROGRAM, complete_var or COMPLETE_VAR, instruction))
        sys.exit(run(self, sys.argv[1:] if args is None else list(args)))


def run(root: click.Group, argv: Sequence[str]) -> int:
    """Run ``argv`` against ``root``, print one envelope, and return the exit status."""
    scanned = scan_arguments(root, argv)
    writer = EnvelopeWriter(scanned.options)
    try:
        configure_logging(os.environ)
        if scanned.missing_value is not None:
            raise click.BadOptionUsage(scanned.missing_value, f"Option '{REPO}' requires a path.")
        state = CliState(options=scanned.options, writer=writer, stdout_is_tty=stdout_is_tty())
        if scanned.options.version:
            from memhtml.app.cli.help import show_version

            show_version(state)
        elif scanned.options.help or not scanned.rest:
            # Bare `memhtml` is `memhtml --help` (issue 18; docs/cli-contract.md §2 printed the
            # manifest, 1,600 lines of JSON at a person's terminal). `memhtml manifest` is the JSON.
            from memhtml.app.cli.help import show_help

            words = (*scanned.command_path, *scanned.unresolved)
            show_help(root, words, state)
        else:
            click.Group.main(
                root, args=list(scanned.rest), prog_name=PROGRAM, standalone_mode=False, obj=state
            )
        if not writer.emitted:
            raise NoEnvelope("the command finished without printing its result")
    except BrokenPipeError:
        return reader_gone()
    except Exception as exc:  # every failure, ours or not, becomes the one failure envelope
        return _report(exc, scanned, root, writer)
    return EXIT_OK


def build_cli(registrars: Sequence[Registrar] = REGISTRARS) -> RootGroup:
    """A root group with the commands ``registrars`` add (tests add throwaway ones)."""
    root = RootGroup(
        name=PROGRAM,
        help=SUMMARY,
        # No click help option anywhere: -h/--help are lifted out before parsing, and click's
        # own would print plain text to stdout.
        context_settings={"help_option_names": []},
    )
    commands = LazyCommands(root)
    commands.update(root.commands)
    root.commands = commands
    for register in registrars:
        if isinstance(register, LazyModule):
            commands.defer(register)
        else:
            register(root)
    return root


def _report(exc: Exception, scanned: ScannedArgs, root: click.Group, writer: EnvelopeWriter) -> int:
    # Loaded only on failure: the error table imports every port's exceptions.
    from memhtml.app.cli.errors import ERR_UNKNOWN
    from memhtml.app.cli.failures import describe_failure

    failure = describe_failure(exc, scanned, root)
    if failure.code == ERR_UNKNOWN:
        traceback.print_exception(exc, file=sys.stderr)
    if writer.emitted:
        # The result is out already; a second envelope would break every parser downstream.
        print(f"memhtml: {failure.code}: {failure.message}", file=sys.stderr)
    else:
        writer.failure(failure)
    return failure.exit_status


cli: Final = build_cli()
