"""What the server tells a client about one tool, as a plain value (no SDK types)."""

from __future__ import annotations

import attrs

from memhtml.app.mcp.params import Param, input_schema


@attrs.frozen(kw_only=True)
class ToolSpec:
    """One tool: its name, prose for a model, parameters and result shape.

    Attributes:
        name: The tool's name (the CLI command it mirrors, ``_`` for spaces).
        title: A short human-readable name.
        description: What it does, when to use it, and an example call.
        params: The arguments, in the order a model should think about them.
        response_type: The CLI envelope ``type`` whose ``data`` the result carries.
        output_keys: The keys every successful result's structured content holds.
        read_only: Changes nothing in the store (no commit, no salience bump).
        destructive: May move or replace existing memories (they stay in git history).
        idempotent: Repeating the call with the same arguments changes nothing more.
    """

    name: str
    title: str
    description: str
    params: tuple[Param, ...]
    response_type: str
    output_keys: tuple[str, ...]
    read_only: bool
    destructive: bool = False
    idempotent: bool = False

    def input_schema(self) -> dict[str, object]:
        """The JSON Schema of the call's ``arguments``."""
        return input_schema(self.params)

    def output_schema(self) -> dict[str, object]:
        """A JSON Schema naming the keys every successful result carries.

        Values are left unconstrained: their shapes are docs/cli-contract.md's, and restating them
        here would be a second copy to drift. Each is the boolean schema ``true`` rather than
        ``{}`` (the same meaning): a client checks every result against this schema, and a
        ``{}`` costs it a sub-schema lookup per key (~130 µs a search result, against ~13).
        """
        return {
            "type": "object",
            "properties": dict.fromkeys(self.output_keys, True),
            "required": list(self.output_keys),
        }
