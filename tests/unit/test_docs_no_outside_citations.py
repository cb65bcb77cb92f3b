"""No code cites a file outside the repository: comments and docstrings cite docs/ instead.

To add after docs-sweep.py has run (it fails before): save as
tests/unit/test_docs_no_outside_citations.py. Runtime data paths (the LoCoMo default
`../shared/data/locomo/locomo10.json`) are settings, not citations, and are not matched.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Final

ROOT: Final = Path(__file__).resolve().parents[2]
CODE_DIRS: Final = ("memhtml", "tests", "bench")
CODE_SUFFIXES: Final = (".py", ".sql")
# A spec name followed by a section number, a spec file name, a seed with its number, or the
# spec and seed folders themselves.
OUTSIDE: Final = re.compile(
    r"(?<![A-Za-z0-9_/])(?:FORMAT|SCHEMA|CLI|EVAL|DECISIONS)(?:\.md)?(?: ?§| [0-9]| [ABC]\b)"
    r"|(?<![A-Za-z0-9_/])(?:FORMAT|SCHEMA|EVAL|DECISIONS)'s"
    r"|(?<![A-Za-z0-9_/])(?:FORMAT|SCHEMA|CLI|EVAL|DECISIONS)\.md\b"
    r"|\bseed 00[0-9]\b|\bthe seed[']s\b|/shared/(?:spec|seeds)\b"
)


def outside_citations(root: Path) -> list[str]:
    """``file:line: match`` for every citation of an outside file under ``root``'s code."""
    found: list[str] = []
    for directory in CODE_DIRS:
        for path in sorted((root / directory).rglob("*")):
            if path.suffix not in CODE_SUFFIXES or "__pycache__" in path.parts:
                continue
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                found += [
                    f"{path.relative_to(root)}:{number}: {m.group(0)}"
                    for m in OUTSIDE.finditer(line)
                ]
    return found


def test_code_cites_docs_not_outside_files() -> None:
    """Every comment and docstring cites docs/ (see docs-citation-map.tsv for the old forms)."""
    assert [] == outside_citations(ROOT)


def test_the_pattern_sees_each_old_form_and_spares_data_paths(tmp_path: Path) -> None:
    """Each old citation form is caught; a data path and a docs/ citation are not."""
    spec = "FORMAT"
    old_forms = [
        f"{spec}.md §10",
        f"{spec} §5",
        "SCHEMA" + " §3.7",
        "CLI" + ".md §3.2",
        "EVAL" + ".md B.3",
        "DECISIONS" + " 12",
        "seed" + " 000 §9",
        "the seed" + "'s fold",
    ]
    code = tmp_path / "memhtml" / "mod.py"
    code.parent.mkdir()
    lines = [f"# cites {form}" for form in old_forms]
    lines += ["# default ../shared/data/locomo/locomo10.json", "# see docs/format.md §10"]
    code.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert len(old_forms) == len(outside_citations(tmp_path))
