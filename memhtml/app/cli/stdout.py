"""The only writer of stdout: one envelope per invocation, as JSON or rendered for a person."""

from __future__ import annotations

import sys
from collections.abc import Mapping

from memhtml.app.cli import pretty
from memhtml.app.cli.envelope import (
    Failure,
    drop_nulls,
    encode,
    failure_envelope,
    success_envelope,
    to_json_value,
)
from memhtml.app.cli.global_options import GlobalOptions


class SecondEnvelope(RuntimeError):
    """A command tried to print after its envelope; a bug in the command, never the caller's."""


class EnvelopeWriter:
    """Prints exactly one result to stdout in the format the global options chose.

    Args:
        options: ``dense`` minifies and drops null-valued keys; ``pretty`` renders for a
            person instead of printing JSON.
    """

    def __init__(self, options: GlobalOptions) -> None:
        self._options = options
        self._emitted = False
        self._handed_over = False

    @property
    def emitted(self) -> bool:
        """Whether this invocation's one result has been printed."""
        return self._emitted

    def hand_over(self) -> None:
        """Give stdout to a protocol that owns it from now on (``memhtml mcp`` on stdio).

        The invocation's one envelope then goes to stderr: a client parsing stdout as
        JSON-RPC must never meet a line that is not a protocol message.
        """
        self._handed_over = True

    def success(self, response_type: str, data: Mapping[str, object]) -> None:
        """Print the success envelope around ``data``.

        Raises:
            SecondEnvelope: Something was already printed.
            TypeError: ``data`` holds a value JSON cannot carry.
        """
        envelope = success_envelope(response_type, data)
        if self._options.pretty:
            body = envelope["data"]
            if self._options.dense:
                body = drop_nulls(body)
            self._write(pretty.render_success(response_type, body))
        else:
            self._write(encode(envelope, dense=self._options.dense))

    def failure(self, failure: Failure) -> None:
        """Print the failure envelope.

        Raises:
            SecondEnvelope: Something was already printed.
        """
        if self._options.pretty:
            self._write(pretty.render_failure(to_json_value(failure_envelope(failure))))
        else:
            self._write(encode(failure_envelope(failure), dense=self._options.dense))

    def text(self, text: str) -> None:
        """Print prose meant for a terminal (Markdown help) in place of an envelope.

        Raises:
            SecondEnvelope: Something was already printed.
        """
        self._write(text if text.endswith("\n") else text + "\n")

    def _write(self, text: str) -> None:
        if self._emitted:
            raise SecondEnvelope("stdout already carries this invocation's result")
        self._emitted = True
        stream = sys.stderr if self._handed_over else sys.stdout
        stream.flush()
        # Bytes through the buffer, so the output is UTF-8 whatever the locale says.
        buffer = getattr(stream, "buffer", None)
        if buffer is None:
            stream.write(text)
            stream.flush()
        else:
            buffer.write(text.encode("utf-8"))
            buffer.flush()
