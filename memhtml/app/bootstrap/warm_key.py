"""Which warm helper a process's environment belongs to, read from the raw variables.

Standard library only: the console script's front door reads it before it loads the program,
to find a running helper that can answer a whole command. Every fact that decides the vectors
is in the key (the program's version, code and interpreter, the backend, the model, its folder,
the thread count), so two environments that could embed or run differently never share a
helper; two
spellings of one configuration (``on`` and ``local``) may get two helpers, which costs a load,
never a wrong answer. Values are not validated here: a command that runs validates them.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Final

import memhtml
from memhtml import __version__

HELPER_MODULE: Final = "memhtml.app.cli.warm_serve"
"""What ``python -m`` runs to start a helper."""
HELPER_COMMAND: Final = ("-P", "-m", HELPER_MODULE)
"""The interpreter's arguments that start a helper. ``-P``: ``-m`` would otherwise put the
caller's working folder first on the import path, and a folder holding another ``memhtml``
package (a source checkout, say) would run that code as this installation's helper."""
ENV_EMBED: Final = "MEMHTML_EMBED"
ENV_EMBED_HELPER: Final = "MEMHTML_EMBED_HELPER"
ENV_EMBED_HELPER_IDLE: Final = "MEMHTML_EMBED_HELPER_IDLE"
DEFAULT_IDLE_SECONDS: Final = 600
MAX_IDLE_SECONDS: Final = 7 * 24 * 3600
_MODEL: Final = "MEMHTML_EMBED_MODEL"
_MODEL_DIR: Final = "MEMHTML_EMBED_MODEL_DIR"
_THREADS: Final = "MEMHTML_EMBED_THREADS"
# The backends a helper serves, by their spellings (config.py's table): the two whose model
# loads in the process, and `off`, whose helper runs commands only. Bedrock is not served: its
# credentials come from the environment of each command.
_SERVED: Final = {"": "local", "local": "local", "on": "local", "e5": "e5", "off": "off"}
OFF_SPELLINGS: Final = frozenset({"off", "0", "false", "no"})
# Unix sockets, fork and flock: a helper runs on POSIX systems only; elsewhere every command
# runs in its own process, as with the helper switched off.
SUPPORTED: Final = os.name == "posix" and hasattr(os, "fork")


def _value(environ: Mapping[str, str], name: str) -> str:
    return environ.get(name, "").strip()


def served_backend(environ: Mapping[str, str]) -> str | None:
    """``local``, ``e5`` or ``off`` when a helper may serve the environment (the helper is not
    switched off); ``None`` otherwise."""
    if not SUPPORTED or _value(environ, ENV_EMBED_HELPER).lower() in OFF_SPELLINGS:
        return None
    return _SERVED.get(_value(environ, ENV_EMBED).lower())


@functools.cache
def code_stamp() -> int:
    """The newest modification time of the program's source files.

    The version alone does not change when a developer's checkout is edited or pulled, and a
    helper started before would go on running the old code for the commands forwarded to it.
    A walk of the package's ~400 files costs ~3 ms, once per process.
    """
    return newest_source(Path(memhtml.__file__).parent)


def newest_source(root: Path) -> int:
    """The newest ``st_mtime_ns`` of the ``.py`` files under ``root`` (``__pycache__`` and
    symbolic links not followed); 0 when there is none."""
    newest = 0
    folders = [root]
    while folders:
        with os.scandir(folders.pop()) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    if entry.name != "__pycache__":
                        folders.append(Path(entry.path))
                elif entry.name.endswith(".py"):
                    newest = max(newest, entry.stat(follow_symlinks=False).st_mtime_ns)
    return newest


def helper_key(environ: Mapping[str, str]) -> str:
    """Sixteen hex digits naming the configuration a helper serves."""
    model_dir = _value(environ, _MODEL_DIR)
    facts = {
        "version": __version__,
        "code": code_stamp(),
        "python": sys.executable,
        "backend": _SERVED.get(_value(environ, ENV_EMBED).lower(), "other"),
        "model": _value(environ, _MODEL),
        "model_dir": os.path.abspath(os.path.expanduser(model_dir)) if model_dir else "",
        "threads": _value(environ, _THREADS),
    }
    return hashlib.sha256(json.dumps(facts, sort_keys=True).encode()).hexdigest()[:16]
