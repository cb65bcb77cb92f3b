"""The one piece of repository config ``init`` sets: the ``ours`` merge driver.

``.gitattributes`` marks generated files ``merge=ours``; git runs the driver named by
``merge.ours.driver`` and fails the merge when none is configured. ``true`` keeps our side.

Written here, in the app, through dulwich's config API: the ``GitWriter`` port never writes
config (it must not invent an identity), and this value is the store's own, not the user's.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from dulwich.errors import NotGitRepository
from dulwich.repo import Repo

from memhtml.ports.errors import GitFailure

MERGE_SECTION: Final = (b"merge", b"ours")
DRIVER_KEY: Final = b"driver"
DRIVER_VALUE: Final = b"true"
CONFIGURE_OPERATION: Final = "configure merge driver"


def ensure_merge_ours_driver(root: str | Path) -> bool:
    """Set ``merge.ours.driver=true`` in the repository's own config unless it is set.

    Returns:
        True when the config file was changed.

    Raises:
        GitFailure: No repository at ``root``, or its config cannot be read or written.
    """
    try:
        with Repo(str(root)) as repo:
            config = repo.get_config()
            try:
                current = config.get(MERGE_SECTION, DRIVER_KEY)
            except KeyError:
                current = None
            if current == DRIVER_VALUE:
                return False
            config.set(MERGE_SECTION, DRIVER_KEY, DRIVER_VALUE)
            config.write_to_path()
            return True
    except (NotGitRepository, OSError, ValueError) as error:
        raise GitFailure(CONFIGURE_OPERATION) from error
