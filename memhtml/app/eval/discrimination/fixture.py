"""The values a generated fixture is made of: files to write, probes, access rows, clock."""

from __future__ import annotations

import datetime as dt
from collections import Counter
from typing import Final, Literal

import attrs

from memhtml.app.eval.discrimination.controls import FAMILY_ORDER, Family
from memhtml.domain.model import Link, RenderInputs
from memhtml.domain.reinforce import AccessRow

DAY_MS: Final = 86_400_000
DEFAULT_EPOCH: Final = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
NOW_AFTER_EPOCH_DAYS: Final = 300
"""With ``--now``, the epoch is ``floor(now / day) - 300 days``; without, now is epoch + 300."""


class FixtureInvalid(RuntimeError):
    """A generated file broke the format: a generator bug, never a retrieval result."""


Role = Literal["person", "base", "control", "archived", "capability"]


def epoch_ms_of(now_ms: int | None) -> int:
    """The fixture's epoch in epoch milliseconds (docs/evaluation.md §A.2 "Clock")."""
    if now_ms is None:
        return int(DEFAULT_EPOCH.timestamp() * 1000)
    return (now_ms // DAY_MS) * DAY_MS - NOW_AFTER_EPOCH_DAYS * DAY_MS


def resolved_now_ms(now_ms: int | None) -> int:
    """``now`` as given, else the default epoch plus 300 days (a deterministic instant)."""
    if now_ms is not None:
        return now_ms
    return epoch_ms_of(None) + NOW_AFTER_EPOCH_DAYS * DAY_MS


def instant_of(epoch_ms: int) -> dt.datetime:
    """Epoch milliseconds as an aware UTC datetime."""
    return dt.datetime.fromtimestamp(epoch_ms / 1000, tz=dt.UTC)


@attrs.frozen(kw_only=True)
class FixtureFile:
    """One memory file to write.

    Attributes:
        path: Its repo path.
        inputs: What the renderer turns into the file.
        role: ``person``, ``base``, ``control`` or ``archived``.
        archived_at: For an archived copy, the archive stamp its head gets.
        superseded_by: For an archived copy, the live memory that replaced it.
    """

    path: str
    inputs: RenderInputs
    role: Role
    archived_at: str | None = None
    superseded_by: str | None = None

    @property
    def links(self) -> tuple[Link, ...]:
        """The authored edges the file carries."""
        return self.inputs.links


@attrs.frozen(kw_only=True)
class ControlSpec:
    """A planted look-alike: where it is, which family, and the claim it states."""

    path: str
    family: Family
    claim: str


@attrs.frozen(kw_only=True)
class ProbeSpec:
    """One probe: its query, the target that should win and the controls it must beat."""

    query: str
    target_path: str
    target_claim: str
    controls: tuple[ControlSpec, ...]


@attrs.frozen(kw_only=True)
class Fixture:
    """Everything one ``(seed, size, probes, now)`` generates.

    Attributes:
        seed, size, requested_probes: The generator's inputs.
        now_ms: The instant the run's clock is pinned to, epoch milliseconds.
        epoch_ms: The fixture's day zero.
        files: Every memory file, in write order (people, base, controls, archived).
        probes: The probes, in selection order.
        access_rows: The salience rows the state plane is seeded with, by path.
    """

    seed: int
    size: int
    requested_probes: int
    now_ms: int
    epoch_ms: int
    files: tuple[FixtureFile, ...]
    probes: tuple[ProbeSpec, ...]
    access_rows: tuple[AccessRow, ...]

    def family_counts(self) -> dict[str, int]:
        """Controls per family, every family named (zero when absent)."""
        counts = Counter(c.family for p in self.probes for c in p.controls)
        return {family.value: counts.get(family, 0) for family in FAMILY_ORDER}

    def paths(self, role: Role) -> tuple[str, ...]:
        """The paths of the files playing ``role``."""
        return tuple(f.path for f in self.files if f.role == role)
