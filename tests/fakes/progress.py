"""A ``ProgressSink`` that records what a pass told it, for assertions on totals and units."""

from __future__ import annotations

import attrs


@attrs.frozen(kw_only=True)
class PhaseRecord:
    """One announced phase: its total, the units advanced, and whether it was finished."""

    phase: str
    total: int
    done: int
    finished: bool


@attrs.define
class FakeProgress:
    """Records every call; ``phases`` folds them into one ``PhaseRecord`` per ``start``."""

    calls: list[tuple[str, str, int]] = attrs.Factory(list)

    def start(self, phase: str, total: int) -> None:
        """Record the phase and its total."""
        self.calls.append(("start", phase, total))

    def advance(self, units: int = 1) -> None:
        """Record the units."""
        self.calls.append(("advance", "", units))

    def finish(self) -> None:
        """Record the end of the current phase."""
        self.calls.append(("finish", "", 0))

    def phases(self) -> list[PhaseRecord]:
        """Each started phase in order, with the units advanced before the next ``start``.

        Raises:
            AssertionError: Units were advanced or a phase finished before any start.
        """
        records: list[PhaseRecord] = []
        for kind, phase, value in self.calls:
            if kind == "start":
                records.append(PhaseRecord(phase=phase, total=value, done=0, finished=False))
                continue
            assert records, f"{kind} before any start"
            last = records[-1]
            if kind == "advance":
                records[-1] = attrs.evolve(last, done=last.done + value)
            else:
                records[-1] = attrs.evolve(last, finished=True)
        return records

    def summary(self) -> list[tuple[str, int, int]]:
        """``(phase, total, done)`` per started phase, every one of them finished."""
        records = self.phases()
        assert all(record.finished for record in records), records
        return [(record.phase, record.total, record.done) for record in records]
