"""The warm helper's held stores (``app/cli/held_stores.py``): reads after the first reuse the
open store, and answer what a store opened afresh would answer, whatever another process, a
hand edit, a deleted index or a killed writer did in between.

Commands run in-process through the shipped click group, as the helper runs them; the other
process's writes and the killed writer are real processes.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from memhtml.app.bootstrap import read_settings
from memhtml.app.cli.commands.opening import hold_stores
from memhtml.app.cli.held_stores import HeldStores
from memhtml.app.cli.warm_commands import again_if_held_failed, run_as_caller
from memhtml.app.store import Store, open_store
from memhtml.domain.errors import NotFound
from memhtml.ports.errors import StorageFailure
from tests.faults.harness import (
    BaseStore,
    build_base,
    cli_command,
    clone,
    process_env,
    run,
    run_killed_at,
)

LEXICAL = {"MEMHTML_EMBED": "off"}


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> BaseStore:
    return build_base(tmp_path_factory.mktemp("held") / "base", memories=8)


@pytest.fixture
def store(base: BaseStore, tmp_path: Path) -> BaseStore:
    return clone(base, tmp_path / "store")


@pytest.fixture
def held() -> Iterator[HeldStores]:
    stores = HeldStores()
    hold_stores(stores)
    yield stores
    hold_stores(None)
    stores.close_all()


def _data(root: Path, *args: str) -> Any:
    result = run(root, *args)
    assert result.exit_code == 0, result.stdout + result.stderr
    envelope = json.loads(result.stdout)
    envelope["data"].pop("indexUpdateMs", None)
    return envelope["data"]


def _unheld(root: Path, *args: str) -> Any:
    """What a process of its own answers: the same command with no stores held."""
    hold_stores(None)
    try:
        return _data(root, *args)
    finally:
        hold_stores(None)


def _titles(data: Any) -> list[str]:
    return [hit["title"] for hit in data["hits"]]


def test_reads_after_the_first_reuse_its_store_and_answer_alike(
    base: BaseStore, store: BaseStore, held: HeldStores, tmp_path: Path
) -> None:
    """The same reads on two copies of one store, held and not: the same answers (reads
    record access, so each copy sees its own reads before)."""
    twin = clone(base, tmp_path / "twin")
    root, first = store.root, store.paths[0]
    reads = [
        ("search", "ledger budget"),
        ("recall", "invoice export", "--budget", "600"),
        ("read", first),
        ("list", "--limit", "5"),
        ("neighbors", first),
        ("search", "retry export", "--limit", "3"),
    ]
    answers = [_data(root, *args) for args in reads]
    assert (held.opened, len(held), held.failures) == (1, 1, 0)
    hold_stores(None)
    assert answers == [_data(twin.root, *args) for args in reads]


def test_a_write_by_another_process_and_a_hand_edit_are_seen(
    store: BaseStore, held: HeldStores
) -> None:
    root = store.root
    _data(root, "search", "anything at all")
    written = subprocess.run(
        cli_command(
            root,
            [
                "write",
                "--type",
                "semantic",
                "--title",
                "Zebra crossing moved",
                "--claim",
                "The zebra crossing moved north.",
            ],
        ),
        env=process_env(),
        capture_output=True,
        check=False,
    )
    assert written.returncode == 0, written.stderr
    assert _titles(_data(root, "search", "zebra crossing"))[0] == "Zebra crossing moved"
    edited = root / store.paths[1]
    text = edited.read_text(encoding="utf-8")
    title = _data(root, "read", store.paths[1])["title"]
    edited.write_text(text.replace(f"<title>{title}", "<title>Hand edited title"), "utf-8")
    assert _data(root, "read", store.paths[1])["title"] == "Hand edited title"
    assert held.opened == 1
    assert _data(root, "search", "hand edited") == _unheld(root, "search", "hand edited")


def test_a_deleted_index_is_opened_again(store: BaseStore, held: HeldStores) -> None:
    root = store.root
    _data(root, "search", "ledger")
    for lost in root.joinpath(".memhtml").glob("index.db*"):
        lost.unlink()
    answer = _data(root, "search", "ledger")
    assert held.opened == 2
    assert answer == _unheld(root, "search", "ledger")


def test_a_killed_writers_commit_is_finished_by_a_fresh_open(
    store: BaseStore, held: HeldStores
) -> None:
    root = store.root
    _data(root, "search", "ledger")
    args = [
        "write",
        "--type",
        "semantic",
        "--title",
        "Killed after the ref",
        "--claim",
        "It lands.",
    ]
    run_killed_at(root, "commit.ref", args)
    with open_store(root, environ={**os.environ, **LEXICAL}, heal=False) as looking:
        assert looking.services.writer.needs_recovery()
    assert _titles(_data(root, "search", "killed after the ref"))[0] == "Killed after the ref"
    assert held.opened == 2
    with open_store(root, environ={**os.environ, **LEXICAL}, heal=False) as looking:
        assert not looking.services.writer.needs_recovery()


def test_other_settings_open_their_own(store: BaseStore, held: HeldStores) -> None:
    root = store.root
    _data(root, "search", "ledger")
    run_with_name = run  # the identity variable is one of the settings a store is opened with
    os.environ["MEMHTML_GIT_NAME"] = "Someone Else"
    try:
        assert run_with_name(root, "search", "ledger").exit_code == 0
    finally:
        del os.environ["MEMHTML_GIT_NAME"]
    assert held.opened == 2


def test_a_request_error_keeps_the_store_and_a_port_failure_closes_it(
    store: BaseStore, held: HeldStores
) -> None:
    environ = {**os.environ, **LEXICAL}
    settings = read_settings(store.root, environ)

    opener = _opener(store.root, environ)

    with held.lease(settings, opener) as first:
        pass
    with pytest.raises(NotFound), held.lease(settings, opener) as second:
        raise NotFound("no memory there")
    with pytest.raises(StorageFailure), held.lease(settings, opener) as third:
        raise StorageFailure("the disk went away")
    with held.lease(settings, opener) as fourth:
        pass
    assert first is second is third
    assert fourth is not first
    assert (held.opened, held.failures) == (2, 1)


def test_the_least_recently_used_store_is_closed_beyond_capacity(
    base: BaseStore, tmp_path: Path
) -> None:
    stores = HeldStores(capacity=1)
    environ = {**os.environ, **LEXICAL}
    roots = [clone(base, tmp_path / name).root for name in ("a", "b")]
    leased = []
    for root in [*roots, roots[0]]:
        with stores.lease(read_settings(root, environ), _opener(root, environ)) as leased_now:
            leased.append(leased_now)
    assert (stores.opened, len(stores)) == (3, 1)
    assert leased[2] is not leased[0]
    stores.close_all()
    assert len(stores) == 0


def _opener(root: Path, environ: dict[str, str]) -> Callable[[], Store]:
    return lambda: open_store(root, environ=environ)


def test_a_read_that_fails_on_a_held_store_runs_again_on_a_fresh_one(
    store: BaseStore, held: HeldStores, tmp_path: Path
) -> None:
    """The helper's runner: the answer is a fresh process's, not the held store's failure."""
    environ = {**process_env(), "MEMHTML_ROOT": str(store.root)}

    def search() -> tuple[int, bytes, bytes]:
        return run_as_caller(["search", "ledger"], environ, str(tmp_path), False, False)

    assert again_if_held_failed(held, search)[0] == 0
    # The held store's database handle breaks between two commands.
    settings = read_settings(store.root, environ)
    with held.lease(settings, _opener(store.root, environ)) as broken:
        broken.services.storage.close()
    status, out, _ = again_if_held_failed(held, search)
    assert (status, held.opened, held.failures) == (0, 2, 1)
    hold_stores(None)
    assert _steady(out) == _steady(search()[1])


def _steady(raw: bytes) -> Any:
    envelope = json.loads(raw)
    envelope["data"].pop("indexUpdateMs", None)
    return envelope
