"""The capability probe families of issue 15 (docs/evaluation.md §A.5): one probe each for an
entity matched only through an alias, a fix reached only through a ``fixes`` link, a maintained
procedure beating a session note in a near tie (authority), and a memory deleted after T found
with ``--known-at T`` and absent without.

Each family plants a few files of its own, worded from an invented vocabulary no base topic
uses, and names the switch its feature needs (an arm, ``authority``, an instant), as a caller
would. Run with the switch off, each probe must fail: that is what makes it a probe of the
feature rather than of the corpus.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Final

import attrs

from memhtml.app.eval.discrimination.fixture import DAY_MS, FixtureFile, instant_of
from memhtml.app.eval.discrimination.scoring import ProbeScore, score_probe
from memhtml.domain.datetimes import utc_stamp
from memhtml.domain.fusion import selected_arm_names
from memhtml.domain.model import Link, RenderInputs
from memhtml.ports.retrieval import RankingOptions


class Capability(StrEnum):
    """A capability family, named as the report names it."""

    ENTITY_ALIAS = "entity-alias"
    FIXES_LINK = "fixes-link"
    AUTHORITY = "authority"
    KNOWN_AT = "known-at"


CAPABILITY_ORDER: Final = tuple(Capability)
FIRST_COMMIT_BEFORE_S: Final = 3_600
"""The fixture's first commit lands this long before the run's instant."""
SECOND_COMMIT_BEFORE_S: Final = 1_800
"""The commit that deletes the known-at family's memory lands this long before it."""
KNOWN_AT_BEFORE_S: Final = 2_700
"""The instant the known-at probe asks about: between the two commits."""
_DIR: Final = "areas/capability"


@attrs.frozen(kw_only=True)
class CapabilityProbe:
    """One capability probe.

    Attributes:
        family: What it probes.
        query: The search text.
        target_path: The memory that must come first among target and controls.
        control_paths: The memories it must strictly outrank (an absent one is beaten).
        arms: Arms the feature needs beyond the default set (the entity or graph arm).
        authority: The feature is the authority step.
        known_at_ms: The feature is ``--known-at`` at this instant (epoch ms); the target must
            also be absent from the same search without it.
    """

    family: Capability
    query: str
    target_path: str
    control_paths: tuple[str, ...]
    arms: tuple[str, ...] = ()
    authority: bool = False
    known_at_ms: int | None = None

    def options(self, base: RankingOptions, *, enabled: bool) -> RankingOptions:
        """``base`` with the feature's switch on (``enabled``) or off."""
        names = selected_arm_names(base.arms)
        arms = names | set(self.arms) if enabled else names - set(self.arms)
        authority = (base.authority or self.authority) if enabled else False
        if self.arms or not enabled:
            return attrs.evolve(base, arms=tuple(sorted(arms)), authority=authority)
        return attrs.evolve(base, authority=authority)


@attrs.frozen(kw_only=True)
class CapabilityPlan:
    """The families' files and probes.

    Attributes:
        initial: Files of the first commit (beside the base fixture).
        later: Files the second commit adds.
        removed: Paths the second commit deletes.
        probes: One probe per family, in :data:`CAPABILITY_ORDER`.
    """

    initial: tuple[FixtureFile, ...]
    later: tuple[FixtureFile, ...]
    removed: tuple[str, ...]
    probes: tuple[CapabilityProbe, ...]


@attrs.frozen(kw_only=True)
class CapabilityScore:
    """One capability probe's outcome.

    Attributes:
        family: The family.
        score: Its ranks, scored as a base probe's are (target against controls).
        present_without: For ``known-at``, whether the target was found without the instant
            (it must not be: the memory is deleted today); ``None`` for the other families.
        passed: Discriminated, and (``known-at``) absent without the instant.
    """

    family: Capability
    score: ProbeScore
    present_without: bool | None
    passed: bool


def score_capability(
    probe: CapabilityProbe, hits: list[str], hits_without: list[str] | None
) -> CapabilityScore:
    """Score a capability probe from its hits (and, for ``known-at``, the hits without it)."""
    score = score_probe(
        query=probe.query,
        target_path=probe.target_path,
        controls=[(path, probe.family.value) for path in probe.control_paths],
        hits=hits,
        degraded=False,
    )
    present = None if hits_without is None else probe.target_path in hits_without
    return CapabilityScore(
        family=probe.family, score=score, present_without=present,
        passed=score.discriminated and not present,
    )  # fmt: skip


def _file(path: str, stamp: str, **inputs: object) -> FixtureFile:
    rendered = RenderInputs(created_at=stamp, updated_at=stamp, **inputs)  # type: ignore[arg-type]
    return FixtureFile(path=f"{_DIR}/{path}.html", inputs=rendered, role="capability")


def capability_plan(epoch_ms: int, now_ms: int) -> CapabilityPlan:
    """The four families over a fixture whose day zero is ``epoch_ms``, probed at ``now_ms``."""
    stamp = utc_stamp(instant_of(epoch_ms + 200 * DAY_MS))
    alias = _file(
        "sorrelgate-relay-owner",
        stamp,
        title="Relay ownership",
        memory_type="semantic",
        claim="The relay belongs to the platform group, which reviews its changes weekly.",
        entities=("service:sorrelgate",),
        aliases=("pemberwick",),
    )
    alias_control = _file(
        "inkvane-relay-owner",
        stamp,
        title="Relay ownership elsewhere",
        memory_type="semantic",
        claim="The other relay belongs to the storage group, which reviews it monthly.",
        entities=("service:inkvane",),
        aliases=("drumlowe",),
    )
    failure = _file(
        "flintmere-spindle-overflow",
        stamp,
        title="Flintmere spindle overflow",
        memory_type="error_pattern",
        claim="The flintmere spindle overflows when copperlark batches arrive together.",
    )
    fix = _file(
        "drain-the-harrowgild-cache",
        stamp,
        title="Drain the cache first",
        memory_type="procedural",
        claim="Drain the harrowgild cache before restarting the moonquarry worker.",
        links=(Link("fixes", f"{_DIR}/flintmere-spindle-overflow.html"),),
    )
    loose = _file(
        "briarvolt-notes",
        stamp,
        title="Briarvolt notes",
        memory_type="semantic",
        claim="The briarvolt dashboard lists thimblewort gauges by region.",
        links=(Link("relates_to", f"{_DIR}/flintmere-spindle-overflow.html"),),
    )
    sentence = "Rotate the tidewhistle keys before the gossamerline sync window"
    procedure = _file(
        "rotate-tidewhistle-keys",
        stamp,
        title="Standing procedure",
        memory_type="procedural",
        claim=f"{sentence}, as the maintained procedure says.",
        importance=8,
    )
    note = _file(
        "session-tidewhistle-keys",
        stamp,
        title="Session note",
        memory_type="episodic",
        claim=f"{sentence}.",
        importance=2,
    )
    gone = _file(
        "wrenhollow-queue-drain",
        stamp,
        title="Queue drain interval",
        memory_type="semantic",
        claim="The wrenhollow dispatch queue drains every 45 minutes.",
    )
    successor = _file(
        "wrenhollow-queue-drain-revised",
        utc_stamp(instant_of(now_ms - SECOND_COMMIT_BEFORE_S * 1000)),
        title="Queue drain interval, revised",
        memory_type="semantic",
        claim="The wrenhollow dispatch queue drains every 90 minutes.",
    )
    probes = (
        CapabilityProbe(
            family=Capability.ENTITY_ALIAS,
            query="pemberwick",
            target_path=alias.path,
            control_paths=(alias_control.path,),
            arms=("entity",),
        ),
        CapabilityProbe(
            family=Capability.FIXES_LINK,
            query="flintmere spindle overflows copperlark batches",
            target_path=fix.path,
            control_paths=(loose.path,),
            arms=("graph",),
        ),
        CapabilityProbe(
            family=Capability.AUTHORITY,
            query="rotate tidewhistle keys gossamerline sync window",
            target_path=procedure.path,
            control_paths=(note.path,),
            authority=True,
        ),
        CapabilityProbe(
            family=Capability.KNOWN_AT,
            query="wrenhollow dispatch queue drains minutes",
            target_path=gone.path,
            control_paths=(successor.path,),
            known_at_ms=now_ms - KNOWN_AT_BEFORE_S * 1000,
        ),
    )
    return CapabilityPlan(
        initial=(alias, alias_control, failure, fix, loose, procedure, note, gone),
        later=(successor,),
        removed=(gone.path,),
        probes=probes,
    )
