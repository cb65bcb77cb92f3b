"""Bytes of one memory file to a ``MemoryDoc``, or an ``InvalidMemory`` with every violation.

A file is never half parsed: either it satisfies every FORMAT.md §10 constraint and yields a
complete ``MemoryDoc`` (warnings attached), or the caller gets all the violations at once.
"""

from __future__ import annotations

from memhtml.adapters.html.article import read_article
from memhtml.adapters.html.constraints import Findings
from memhtml.adapters.html.head import read_head
from memhtml.adapters.html.markup import check_markup
from memhtml.adapters.html.tree import decode_memory, parse_tree, scan_tree
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
    """Parse and validate one memory file.

    Args:
        data: The file's bytes (strict UTF-8, optional BOM) or its text.

    Returns:
        The typed head, the article-derived fields and texts, the recomputed content hash and
        the warnings (FORMAT.md §6).

    Raises:
        InvalidMemory: with every violation in FORMAT.md §10 table order, and the warnings;
            also for bytes that are not UTF-8 or input over the size and nesting caps.
    """
    scan = scan_tree(parse_tree(decode_memory(data)))
    findings = Findings()
    fields = read_head(scan, findings)
    check_markup(scan, findings)
    fields.update(read_article(scan, findings))
    if findings.has_violations:
        raise InvalidMemory(findings.violations(), findings.warnings())
    concepts = (EntityRef(CONCEPT_ENTITY_TYPE, term) for term in fields["defined_terms"])
    langs = (EntityRef(LANG_ENTITY_TYPE, lang) for lang in fields["code_langs"])
    fields["entities"] = tuple(dict.fromkeys((*fields["entities"], *concepts, *langs)))
    fields["fts_text"] = fts_text_of(fields["title"], fields["gist"], fields["body_text"])
    fields["disclosure_text"] = disclosure_text_of(
        fields["gist"], fields["summary_texts"], fields["facets"], fields["citations"]
    )
    fields["word_count"] = word_count_of(fields["body_text"])
    return MemoryDoc(**fields, warnings=findings.warnings())
