"""The last finished sync per remote, kept in ``.git/memhtml-sync.json``.

Inside ``.git`` because it is this machine's memory, not the store's: it must never be
committed, and a fresh clone starts without one. Replaced in one rename, so a crash leaves the
old record or the new one.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Final

from memhtml.ports.git_remote import SyncMark

MARKS_FILE: Final = "memhtml-sync.json"
_VERSION: Final = 1


def read_marks(git_dir: Path) -> dict[str, SyncMark]:
    """Every recorded sync, by remote; an unreadable file reads as none."""
    try:
        body = json.loads((git_dir / MARKS_FILE).read_text(encoding="utf-8"))
        return {
            name: SyncMark(
                remote=name,
                at=str(entry["at"]),
                head=_sha(entry["head"]),
                remote_head=_sha(entry["remoteHead"]),
            )
            for name, entry in body["remotes"].items()
        }
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}


def write_mark(git_dir: Path, mark: SyncMark) -> None:
    """Record ``mark``, keeping the other remotes' records."""
    marks = read_marks(git_dir)
    marks[mark.remote] = mark
    body = {
        "version": _VERSION,
        "remotes": {
            name: {"at": m.at, "head": m.head, "remoteHead": m.remote_head}
            for name, m in sorted(marks.items())
        },
    }
    target = git_dir / MARKS_FILE
    temporary = target.with_name(target.name + ".tmp")
    temporary.write_text(json.dumps(body, sort_keys=True), encoding="utf-8")
    os.replace(temporary, target)


def _sha(value: object) -> str | None:
    if value is None:
        return None
    if isinstance(value, str) and len(value) == 40:
        return value
    raise ValueError("not a commit id")
