"""The command table, loaded one module at a time: a command imports only the module it is in.

Importing every command module up front cost a cold ``memhtml write`` the evaluation harness,
the trace plane and the sync rules it never runs. A ``LazyModule`` names a command module and
the top-level commands its ``register`` adds; the root group's ``LazyCommands`` holds those
names and imports the module the first time one of them is asked for. Anything that needs the
whole table (help, the manifest, completion, a near-miss suggestion) iterates it, which loads
everything, so they see what an eager table would hold. A test holds every ``names`` to what
its module really registers.
"""

from __future__ import annotations

import importlib
from collections.abc import ItemsView, Iterator, KeysView, ValuesView

import attrs
import click


@attrs.frozen
class LazyModule:
    """A command module registered on first use.

    Attributes:
        module: The module's import name; it defines ``register(group)``.
        names: The top-level commands that ``register`` adds.
    """

    module: str
    names: tuple[str, ...]

    def __call__(self, group: click.Group) -> None:
        """Import the module and register its commands on ``group`` now."""
        importlib.import_module(self.module).register(group)


class LazyCommands(dict[str, click.Command]):
    """A group's command mapping that imports a deferred module when one of its names is asked.

    Asking for one name (``get``, ``[]``, ``in``) loads only its module; walking the mapping
    (iteration, ``keys``, ``items``, ``len``…) loads every deferred module first.
    """

    def __init__(self, group: click.Group) -> None:
        super().__init__()
        self._group = group
        self._deferred: dict[str, LazyModule] = {}

    def defer(self, lazy: LazyModule) -> None:
        """Remember ``lazy``'s names; nothing is imported until one is asked for."""
        for name in lazy.names:
            self._deferred[name] = lazy

    def get(self, key: str, default: click.Command | None = None) -> click.Command | None:  # type: ignore[override]
        self._load(key)
        return super().get(key, default)

    def __getitem__(self, key: str) -> click.Command:
        self._load(key)
        return super().__getitem__(key)

    def __contains__(self, key: object) -> bool:
        if isinstance(key, str):
            self._load(key)
        return super().__contains__(key)

    def __iter__(self) -> Iterator[str]:
        self._load_all()
        return super().__iter__()

    def __len__(self) -> int:
        self._load_all()
        return super().__len__()

    def keys(self) -> KeysView[str]:  # type: ignore[override]
        self._load_all()
        return super().keys()

    def values(self) -> ValuesView[click.Command]:  # type: ignore[override]
        self._load_all()
        return super().values()

    def items(self) -> ItemsView[str, click.Command]:  # type: ignore[override]
        self._load_all()
        return super().items()

    def _load(self, name: str) -> None:
        lazy = self._deferred.get(name)
        if lazy is None or dict.__contains__(self, name):
            return
        for deferred in lazy.names:
            self._deferred.pop(deferred, None)
        lazy(self._group)

    def _load_all(self) -> None:
        while self._deferred:
            self._load(next(iter(self._deferred)))
