"""Where ``locomo10.json`` is looked for (docs/decisions.md §25).

The default is ``../shared/data/locomo/locomo10.json`` from the project root. "Project root" is
tried as the working directory first (running from a checkout), then as the source checkout
that holds the imported ``memhtml`` package (running from anywhere else). ``--data`` replaces
both.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from memhtml.app.eval.locomo.dataset import WHERE_TO_GET
from memhtml.domain.errors import NotFound

DEFAULT_RELATIVE_PATH: Final = Path("..", "shared", "data", "locomo", "locomo10.json")


def checkout_root() -> Path:
    """The folder holding the ``memhtml`` package: the project root of a source checkout."""
    import memhtml

    return Path(memhtml.__file__).resolve().parent.parent


def default_candidates(cwd: Path, checkout: Path) -> tuple[Path, ...]:
    """The default path from each root, in order, repeats removed."""
    found = ((root / DEFAULT_RELATIVE_PATH).resolve() for root in (cwd, checkout))
    return tuple(dict.fromkeys(found))


def resolve_data_path(given: str | None, *, cwd: Path | None = None) -> Path:
    """``given`` when set, else the first default candidate that is a file.

    Raises:
        NotFound: No file at ``given``, or at any default candidate; the message names the
            places tried and where to get the file.
    """
    if given is not None:
        path = Path(given).expanduser()
        if not path.is_file():
            raise NotFound(f"no LoCoMo data file at {path}; {WHERE_TO_GET}")
        return path
    candidates = default_candidates(cwd or Path.cwd(), checkout_root())
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    tried = " or ".join(str(candidate) for candidate in candidates)
    raise NotFound(f"no LoCoMo data file at {tried}; {WHERE_TO_GET}")
