"""Bytes of one memory file to a ``MemoryDoc``, or an ``InvalidMemory`` with every violation.

A file is never half parsed: either it satisfies every docs/format.md §10 constraint and yields a
complete ``MemoryDoc`` (warnings attached), or the caller gets all the violations at once.

Two tree builders feed the same checks. ``parse_memory`` is the fast path: a file the pre-scan
proves plain goes to lexbor, anything else to html5lib with its hostile-input guards.
``parse_memory_reference`` always uses html5lib; the contract suite holds the two to the same
result on every file it can generate.
"""

from __future__ import annotations

from memhtml.adapters.html.article import read_article
from memhtml.adapters.html.constraints import Findings
from memhtml.adapters.html.field_checks import check_field_controls
from memhtml.adapters.html.head import read_head
from memhtml.adapters.html.markup import check_markup
from memhtml.adapters.html.routing import scan_text, scan_text_reference
from memhtml.adapters.html.scan import Scan
from memhtml.adapters.html.tree import decode_memory
from memhtml.domain.errors import InvalidMemory
from memhtml.domain.model import (
    CONCEPT_ENTITY_TYPE,
    LANG_ENTITY_TYPE,
    EntityRef,
    MemoryDoc,
    disclosure_text_of,
    fts_text_of,
    word_count_of,
)


def parse_memory(data: bytes | str) -> MemoryDoc:
    """Parse and validate one memory file, with lexbor when the file is plain.

    Args:
        data: The file's bytes (strict UTF-8, optional BOM) or its text.

    Returns:
        The typed head, the article-derived fields and texts, the recomputed content hash and
        the warnings (docs/format.md §6).

    Raises:
        InvalidMemory: with every violation in docs/format.md §10 table order, and the warnings;
            also for bytes that are not UTF-8 or input over the size and nesting caps.
    """
    return memory_from_scan(scan_text(decode_memory(data)))


def parse_memory_reference(data: bytes | str) -> MemoryDoc:
    """``parse_memory`` with html5lib for every file: the reference the fast path must match."""
    return memory_from_scan(scan_text_reference(decode_memory(data)))


def memory_from_scan(scan: Scan) -> MemoryDoc:
    """Check a scanned document and derive its ``MemoryDoc`` (both parsers share this).

    Raises:
        InvalidMemory: with every violation, in docs/format.md §10 table order.
    """
    findings = Findings()
    fields = read_head(scan, findings)
    check_markup(scan, findings)
    fields.update(read_article(scan, findings))
    concepts = (EntityRef(CONCEPT_ENTITY_TYPE, term) for term in fields.get("defined_terms", ()))
    langs = (EntityRef(LANG_ENTITY_TYPE, lang) for lang in fields.get("code_langs", ()))
    fields["entities"] = tuple(dict.fromkeys((*fields["entities"], *concepts, *langs)))
    check_field_controls(fields, findings)
    if findings.has_violations:
        raise InvalidMemory(findings.violations(), findings.warnings())
    fields["fts_text"] = fts_text_of(fields["title"], fields["gist"], fields["body_text"])
    fields["disclosure_text"] = disclosure_text_of(
        fields["gist"], fields["summary_texts"], fields["facets"], fields["citations"]
    )
    fields["word_count"] = word_count_of(fields["body_text"])
    return MemoryDoc(**fields, warnings=findings.warnings())
