"""The SQLite bundle's stand-in port: nothing is built until first use, then built once, and it
answers as the adapter does."""

from __future__ import annotations

from memhtml.adapters.sqlite.on_first_use import OnFirstUse, on_first_use


class _Counter:
    """An adapter whose methods tell which instance answered."""

    def __init__(self, built: list[int]) -> None:
        built.append(len(built))
        self.serial = built[-1]

    def which(self, offset: int) -> int:
        return self.serial + offset


def test_nothing_is_built_before_the_first_use() -> None:
    """Making the stand-in (and reading its repr) builds nothing."""
    built: list[int] = []
    port = on_first_use(lambda: _Counter(built))
    assert ([], "OnFirstUse(unbuilt)") == (built, repr(port))


def test_the_adapter_is_built_once_and_answers_every_call() -> None:
    """Methods and attributes are the one adapter's, however many are asked for."""
    built: list[int] = []
    port = on_first_use(lambda: _Counter(built))
    answers = (port.which(10), port.which(20), port.serial)
    assert ([0], (10, 20, 0)) == (built, answers)


def test_one_stand_in_shared_by_two_ports_builds_one_adapter() -> None:
    """`health` and `pruner` share one stand-in, so one adapter."""
    built: list[int] = []
    stand_in = OnFirstUse(lambda: _Counter(built))
    assert (stand_in.adapter(), [0]) == (stand_in.adapter(), built)
