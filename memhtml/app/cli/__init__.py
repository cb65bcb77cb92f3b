"""The ``memhtml`` command line: one click group; command groups register in their own modules."""

from __future__ import annotations

import click

from memhtml import __version__


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="memhtml")
def cli() -> None:
    """Long-term memory for AI agents, kept as a git repository of semantic HTML files."""


def main() -> None:
    """Console-script entry point."""
    cli()
