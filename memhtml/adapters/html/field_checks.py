"""Control characters in the fields that are printed and committed (issue 14).

The title, the claim, tags, entities and aliases reach terminals, commit subjects and other
programs, so a file whose fields hold a refused control character (``domain/control_chars``)
is refused with ``control-character``, one finding per field, naming the character but never
quoting the text.
"""

from __future__ import annotations

from typing import Any

from memhtml.adapters.html.constraints import Findings
from memhtml.domain.control_chars import first_refused_control
from memhtml.domain.model import EntityRef


def check_field_controls(fields: dict[str, Any], findings: Findings) -> None:
    """Record a ``control-character`` violation for each field holding one."""
    entities: tuple[EntityRef, ...] = fields.get("entities", ())
    values = {
        "title": (fields.get("title", ""),),
        "claim": (fields.get("gist", ""),),
        "tag": fields.get("tags", ()),
        "entity": tuple(entity.ref for entity in entities),
        "alias": fields.get("aliases", ()),
    }
    for position, (field, texts) in enumerate(values.items()):
        for text in texts:
            found = first_refused_control(text)
            if found is not None:
                detail = f"{field} holds control character {found}"
                findings.violation("control-character", detail, position)
                break
