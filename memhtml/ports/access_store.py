"""The access store port: the state plane's reinforcement (cooldown, count, outcome EWMA)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from memhtml.domain.reinforce import ReinforceResult, Signal


class AccessStore(Protocol):
    """Bumps access rows; every decision's twin is ``memhtml.domain.reinforce.reinforce_step``."""

    def missing_paths(self, paths: Sequence[str]) -> tuple[str, ...]:
        """The paths of ``paths`` the index does not hold, in call order, each once.

        Raises:
            StorageFailure: The index cannot be read.
        """
        ...

    def reinforce(self, paths: Sequence[str], signal: Signal, now: str) -> ReinforceResult:
        """Bump each path past its cooldown at ``now``; a repeated path counts once.

        Decided at the instant of the write, so two processes cannot both bump inside one
        cooldown. Without a state plane nothing is bumped and both lists are empty.

        Raises:
            InvalidInput: ``now`` is not a readable instant.
            StorageFailure: The state plane cannot be written.
        """
        ...
