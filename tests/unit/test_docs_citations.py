"""Every citation of docs/ resolves: code and docs name pages that exist and sections those pages
have, so a renumbered heading or a renamed page fails here instead of leaving a dead pointer."""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import Final

ROOT: Final = Path(__file__).resolve().parents[2]
DOCS: Final = ROOT / "docs"
CODE_DIRS: Final = ("memhtml", "tests", "bench")
CODE_SUFFIXES: Final = (".py", ".sql")
TOP_PAGES: Final = ("README.md", "ARCHITECTURE.md", "BENCHMARKS.md")

HEADING: Final = re.compile(r"^#+ §([0-9A-Z]+(?:\.[0-9]+)*) ", re.MULTILINE)
# `docs/format.md §10` in code; `docs/format.md` alone names a page.
CODE_CITATION: Final = re.compile(r"docs/([a-z0-9-]+\.md)(?: §([0-9A-Z]+(?:\.[0-9]+)*))?")
# `[decisions.md §12](decisions.md)` and `[cli.md](cli.md#error-codes)` in a page.
PAGE_LINK: Final = re.compile(r"\[([^\]]*)\]\(((?:docs/)?[A-Za-z0-9_-]+\.md)(#[a-z0-9-]+)?\)")
SECTION_IN_TEXT: Final = re.compile(r"§([0-9A-Z]+(?:\.[0-9]+)*)")


def sections(page: Path) -> set[str]:
    """The section numbers a page's headings carry (``§3.1`` → ``3.1``); none if it is absent."""
    if not page.is_file():
        return set()
    return set(HEADING.findall(page.read_text(encoding="utf-8")))


def code_files() -> list[Path]:
    """Every source and SQL file under memhtml/, tests/ and bench/."""
    return [
        path
        for directory in CODE_DIRS
        for path in sorted((ROOT / directory).rglob("*"))
        if path.suffix in CODE_SUFFIXES and "__pycache__" not in path.parts
    ]


def broken_code_citations(files: Iterable[Path], docs: Path) -> list[str]:
    """``file:line: citation`` for each code citation naming a missing page or section."""
    known: dict[str, set[str]] = {}
    broken: list[str] = []
    for path in files:
        lines = path.read_text(encoding="utf-8").splitlines()
        for number, line in enumerate(lines, start=1):
            for match in CODE_CITATION.finditer(line):
                page, section = match.group(1), match.group(2)
                if page not in known:
                    known[page] = sections(docs / page)
                if not (docs / page).is_file() or (section and section not in known[page]):
                    broken.append(f"{path.name}:{number}: {match.group(0)}")
    return broken


def broken_page_links(pages: Iterable[Path]) -> list[str]:
    """``page: link`` for each Markdown link to a missing page, or to a missing section."""
    broken: list[str] = []
    for page in pages:
        for match in PAGE_LINK.finditer(page.read_text(encoding="utf-8")):
            target = page.parent / match.group(2)
            wanted = SECTION_IN_TEXT.search(match.group(1))
            if not target.is_file() or (wanted and wanted.group(1) not in sections(target)):
                broken.append(f"{page.name}: {match.group(0)}")
    return broken


def test_pages_number_their_sections() -> None:
    """The pages code cites have numbered headings to cite (format.md keeps §1–§12)."""
    assert {str(n) for n in range(1, 13)} <= sections(DOCS / "format.md")
    assert {"1", "2", "3.1", "3.7", "4", "5"} <= sections(DOCS / "index-schema.md")
    assert {"2.4", "7.1", "9.1", "10"} <= sections(DOCS / "ranking.md")
    assert {str(n) for n in range(1, 26)} <= sections(DOCS / "decisions.md")
    assert {"A.1", "A.2", "A.3", "A.4", "B.1", "B.4", "C"} <= sections(DOCS / "evaluation.md")
    assert {"1", "3.1", "3.6", "4", "5", "6"} <= sections(DOCS / "cli-contract.md")


def test_every_code_citation_of_docs_resolves() -> None:
    """`docs/<page>.md §N` in code and tests names an existing page and heading."""
    assert [] == broken_code_citations(code_files(), DOCS)


def test_every_link_between_pages_resolves() -> None:
    """Links between the docs, README and ARCHITECTURE reach a page, and a cited § in it."""
    pages = [*sorted(DOCS.glob("*.md")), *(ROOT / name for name in TOP_PAGES)]
    assert [] == broken_page_links(pages)


def test_the_checkers_see_dead_citations(tmp_path: Path) -> None:
    """A missing heading and a missing page are reported, in code and in page links alike."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "sample.md").write_text("# Sample\n\n## §1 One\n\n### §1.2 Two\n", encoding="utf-8")
    code = tmp_path / "mod.py"
    cited = ["sample.md §1.2", "sample.md §1.3", "absent.md", "sample.md"]
    code.write_text("".join(f"# see docs/{c}\n" for c in cited), encoding="utf-8")
    page = docs / "page.md"
    page.write_text(
        "[sample.md §1](sample.md) [sample.md §9](sample.md) [gone](gone.md)\n", encoding="utf-8"
    )
    assert {"1", "1.2"} == sections(docs / "sample.md")
    # Spelled in two pieces, or the scan of this very file would find them.
    docs_dir = "docs" + "/"
    expected_code = [f"mod.py:2: {docs_dir}sample.md §1.3", f"mod.py:3: {docs_dir}absent.md"]
    assert expected_code == broken_code_citations([code], docs)
    expected_links = ["page.md: [sample.md §9](sample.md)", "page.md: [gone](gone.md)"]
    assert expected_links == broken_page_links([page])
