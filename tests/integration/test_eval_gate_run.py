"""``eval discriminate`` end to end: a real fixture store, real indexing and real search.

One run over the default-size fixture checks the store itself (no archived hit, no dangling
link); it probes 12 targets rather than 36, because each search costs ~0.4 s of pure-Python MMR
over 1024-dimensional vectors. The default fixture's shape (≈304 files, ≥ 30 probes, every
family) is pinned on the same pure generator in ``tests/unit/test_eval_gate_generator.py``.
The CLI tests use a small fixture so the file stays quick.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final

import pytest
from dulwich.repo import Repo

from memhtml.app.eval.discrimination.capabilities import CAPABILITY_ORDER, capability_plan
from memhtml.app.eval.discrimination.fixture import instant_of
from memhtml.app.eval.discrimination.runner import (
    GateConfig,
    GateRun,
    SteppedClock,
    embedder_for,
    gate_store,
    probe_capabilities,
    run_gate,
)
from memhtml.ports.retrieval import RankingOptions
from tests.integration.test_cli_commands_store import data, envelope, invoke

SMALL: Final = ["--size", "40", "--probes", "6"]
STORE_PROBES: Final = 12
A1_KEYS: Final = [
    "mode",
    "seed",
    "now",
    "corpusSize",
    "families",
    "probes",
    "discriminated",
    "inversions",
    "mrr",
    "corpusMrr",
    "mrrFloor",
    "passed",
    "degradedProbes",
    "results",
    "capabilities",
    "ranking",
    "seconds",
]
RESULT_KEYS: Final = [
    "query",
    "targetPath",
    "targetRank",
    "discriminationRank",
    "controlRanks",
    "discriminated",
    "reciprocalRank",
    "corpusReciprocalRank",
    "degraded",
]
# Files whose bytes legitimately differ between two identical runs: SQLite databases, git's
# index (it caches stat data such as inode numbers) and reflogs (stamped with wall time; the
# commits themselves are compared by id).
VOLATILE: Final = (".memhtml/index.db", ".memhtml/state.db", ".git/index", ".git/logs/")


@pytest.fixture(scope="module")
def default_run(tmp_path_factory: pytest.TempPathFactory) -> GateRun:
    """The default seed and size in fake mode, 12 probes, the store kept for inspection."""
    keep = tmp_path_factory.mktemp("gate") / "store"
    return run_gate(GateConfig(keep=keep, probes=STORE_PROBES), embedder_for("fake"))


def _tree(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not str(p.relative_to(root)).startswith(VOLATILE)
    }


def test_default_size_run_passes_with_every_family(default_run: GateRun) -> None:
    """Every requested probe is scored, every family planted, nothing degraded, gate passed."""
    summary, fixture = default_run.summary, default_run.fixture
    assert all(count > 0 for count in fixture.family_counts().values())
    assert (STORE_PROBES, 0, True) == (summary.probes, summary.degraded_probes, summary.passed)


def test_each_capability_probe_passes_and_fails_with_its_feature_off(
    default_run: GateRun,
) -> None:
    """On the kept store, every capability family passes as the run scored it, and fails when
    its switch is off: the entity arm, the graph arm, authority, --known-at."""
    keep = default_run.config.keep
    assert keep is not None
    fixture = default_run.fixture
    plan = capability_plan(fixture.epoch_ms, fixture.now_ms)
    clock = SteppedClock(instant_of(fixture.now_ms))
    with gate_store(keep, default_run.config, embedder_for("fake"), clock) as store:
        on = probe_capabilities(plan, store, RankingOptions(), enabled=True)
        off = probe_capabilities(plan, store, RankingOptions(), enabled=False)
    families = [c.value for c in CAPABILITY_ORDER]
    assert families == [c.family.value for c in default_run.capabilities]
    assert [(f, True) for f in families] == [(c.family.value, c.passed) for c in on]
    assert [(f, False) for f in families] == [(c.family.value, c.passed) for c in off]
    known_at = off[-1]
    assert (False, None) == (known_at.present_without, known_at.score.target_rank)


def test_no_probe_ever_returns_an_archived_memory(default_run: GateRun) -> None:
    """The archived earlier copies share the live memories' words yet never surface."""
    archived = set(default_run.fixture.paths("archived"))
    hits = {path for score in default_run.scores for path in score.hit_paths}
    assert archived
    assert hits
    assert set() == {path for path in hits if path.startswith("archive/")}


def test_kept_store_has_every_file_indexed_and_no_dangling_link(default_run: GateRun) -> None:
    """doctor on the kept store: no dangling link, no unparseable file. Its one concern is
    the fake embedder's vectors, which the configured local model does not share."""
    result = invoke(["--repo", str(default_run.config.keep), "doctor"])
    failure = envelope(result)
    report = failure["detail"]
    assert ([], []) == (report["dangling"], report["unparseable"])
    assert (1, "the store needs attention: the index holds another model's vectors") == (
        result.exit_code,
        failure["error"],
    )


def test_two_runs_write_identical_bytes_and_reports(tmp_path: Path) -> None:
    """Same seed twice: byte-identical files and commit, equal reports except ``seconds``."""
    reports, trees, heads = [], [], []
    for name in ("first", "second"):
        keep = tmp_path / name
        reports.append(data(invoke(["eval", "discriminate", *SMALL, "--keep", str(keep)])))
        trees.append(_tree(keep))
        heads.append(Repo(str(keep)).head())
    for report in reports:
        report.pop("seconds")
    assert reports[0] == reports[1]
    assert trees[0] == trees[1]
    assert heads[0] == heads[1]


def test_envelope_carries_exactly_the_a1_keys(tmp_path: Path) -> None:
    """eval.discrimination holds A.1's keys in order, plus the ranking switches used."""
    result = invoke(["eval", "discriminate", *SMALL, "--rrf-k", "20", "--fts-tokenizer", "porter"])
    body = envelope(result)
    report: dict[str, Any] = body["data"]
    assert (0, "eval.discrimination") == (result.exit_code, body["type"])
    assert A1_KEYS == list(report)
    assert RESULT_KEYS == list(report["results"][0])
    assert {"negation", "numeric", "variant"} == set(report["families"])
    assert (20.0, "porter", None) == (
        report["ranking"]["rrfK"],
        report["ranking"]["ftsTokenizer"],
        report["ranking"]["arms"],
    )


def test_lexical_mode_reports_lexically_discriminated_probes() -> None:
    """lexical: every probe degraded, and the count discriminated without vectors."""
    report = data(invoke(["eval", "discriminate", "--mode", "lexical", *SMALL]))
    assert report["probes"] == report["degradedProbes"]
    assert report["lexicallyDiscriminated"] == report["discriminated"] >= 1
    assert list(report).index("lexicallyDiscriminated") == A1_KEYS.index("discriminated") + 1


def test_a_failing_gate_names_its_first_inversion() -> None:
    """Query arms weighed to zero leave recency to favour the day-newer controls: exit 1."""
    result = invoke(["eval", "discriminate", *SMALL, "--weights", "fts=0,context=0,vector=0"])
    body = envelope(result)
    assert (1, "ERR_DISCRIMINATION_FAILED") == (result.exit_code, body["code"])
    assert "first inversion: query" in body["error"]
    assert "control" in body["error"]


def test_a_sweep_reports_every_seed_and_exits_zero() -> None:
    """--seeds 1-2 runs both seeds, splits them into passed and failed, exits 0."""
    report = data(invoke(["eval", "discriminate", *SMALL, "--seeds", "1-2"]))
    assert [1, 2] == [run["seed"] for run in report["runs"]]
    assert [1, 2] == sorted(report["passedSeeds"] + report["failedSeeds"])


@pytest.mark.parametrize("flags", [["--seed", "3", "--seeds", "1-2"], ["--seeds", "5-1"]])
def test_bad_seed_flags_are_refused(flags: list[str]) -> None:
    """Both seed flags at once, or a backwards range: ERR_INVALID_FLAG before any work."""
    result = invoke(["eval", "discriminate", *flags])
    assert (2, "ERR_INVALID_FLAG") == (result.exit_code, envelope(result)["code"])


def test_local_mode_without_a_loadable_model_fails_cleanly(tmp_path: Path) -> None:
    """A model directory with no model in it: ERR_MODEL_UNAVAILABLE, exit 1."""
    empty = tmp_path / "no-model"
    empty.mkdir()
    env = {"MEMHTML_EMBED": "local", "MEMHTML_EMBED_MODEL_DIR": str(empty)}
    result = invoke(["eval", "discriminate", "--mode", "local", *SMALL], env=env)
    assert (1, "ERR_MODEL_UNAVAILABLE") == (result.exit_code, envelope(result)["code"])
