"""The warm embedding helper against the real model, real processes and real kills.

Every test runs the helper as the command line does (the launcher, a double fork, a private
runtime folder of its own) and stops it afterwards. What a caller gets must not depend on the
helper: the vectors are compared bit for bit with the model run in the test's process.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Mapping
from functools import cache
from pathlib import Path
from typing import Any, Final

import pytest

from memhtml.adapters.local import OnnxMiniLmEmbedder
from memhtml.adapters.warm.client import HelperEmbedder
from memhtml.adapters.warm.place import helper_place
from memhtml.app.bootstrap.warm_helper import command_line_embedder
from memhtml.app.bootstrap.warm_key import helper_key
from memhtml.app.bootstrap.warm_status import helper_status

TEXTS: Final = (
    "The search API allows 300 requests per minute.",
    "",
    "déployé sur le serveur — 東京 😀",
    "word " * 5_000,
)
# Long enough that embedding it keeps the helper busy for a while on two cores.
BUSY_BATCH: Final = tuple(
    f"memory {i} about a shard and its billing ledger " * 12 for i in range(40)
)


@cache
def in_process() -> OnnxMiniLmEmbedder:
    return OnnxMiniLmEmbedder()


def _pid_of(env: Mapping[str, str]) -> int | None:
    return helper_status(env).pid


def _alive(pid: int) -> bool:
    """Running, not a zombie waiting for whoever adopted it to reap it."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _wait_gone(pid: int, seconds: float = 20.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not _alive(pid):
            return True
        time.sleep(0.02)
    return False


def _helpers_in(runtime: str) -> list[int]:
    """Live helper processes whose runtime folder is ``runtime``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            if b"warm_serve" not in (entry / "cmdline").read_bytes():
                continue
            if f"XDG_RUNTIME_DIR={runtime}".encode() in (entry / "environ").read_bytes().split(
                b"\0"
            ) and _alive(int(entry.name)):
                found.append(int(entry.name))
    return found


def _helper_env(runtime: Path) -> dict[str, str]:
    return {
        **os.environ,
        "XDG_RUNTIME_DIR": str(runtime),
        "MEMHTML_EMBED": "local",
        "MEMHTML_EMBED_HELPER": "on",
        "MEMHTML_EMBED_HELPER_IDLE": "300",
    }


def _stop_helpers(runtime: Path) -> None:
    """Kill every helper started under ``runtime`` and remove the folder."""
    for lock in runtime.glob("memhtml/embed-*.lock"):
        pid = int(lock.read_text().strip() or 0)
        with contextlib.suppress(FileNotFoundError):  # that helper is gone already
            if b"warm_serve" in Path(f"/proc/{pid}/cmdline").read_bytes():
                os.kill(pid, signal.SIGKILL)
                assert _wait_gone(pid)
    shutil.rmtree(runtime)


@pytest.fixture
def env() -> Iterator[dict[str, str]]:
    """A private runtime folder with the helper on; every helper started there is stopped.

    The folder is made directly under the temporary folder: a socket's path must fit in ~100
    bytes, and pytest's per-test folders can be longer than that.
    """
    runtime = Path(tempfile.mkdtemp(prefix="mh-"))
    yield _helper_env(runtime)
    _stop_helpers(runtime)


def _helper_embedder(env: Mapping[str, str]) -> HelperEmbedder:
    embedder = command_line_embedder(env)
    assert isinstance(embedder, HelperEmbedder)
    return embedder


def test_vectors_through_the_helper_are_the_models_own(env: dict[str, str]) -> None:
    """Queries and document batches come back bit for bit as the model gives them here."""
    embedder = _helper_embedder(env)
    assert embedder.watermark == in_process().watermark
    assert embedder.embed_query(TEXTS[0]) == in_process().embed_query(TEXTS[0])
    assert embedder.embed(TEXTS) == tuple(in_process().embed(TEXTS))
    assert embedder.served_by_helper
    status = helper_status(env)
    assert (status.running, status.enabled) == (True, True)
    assert status.pid is not None
    assert status.pid != os.getpid()


def test_a_second_process_finds_the_running_helper(env: dict[str, str]) -> None:
    """A later embedder (another command) talks to the same helper instead of starting one."""
    _helper_embedder(env).embed_query("first command")
    first = _pid_of(env)
    vector = _helper_embedder(env).embed_query("second command")
    assert (_pid_of(env), vector) == (first, in_process().embed_query("second command"))


def test_a_helper_killed_while_idle_is_replaced(env: dict[str, str]) -> None:
    """kill -9 leaves its socket behind; the next command starts a new helper over it."""
    _helper_embedder(env).embed_query("before the kill")
    pid = _pid_of(env)
    assert pid is not None
    os.kill(pid, signal.SIGKILL)
    assert _wait_gone(pid)
    place = helper_place(helper_key(env), env)
    assert place.socket.exists()
    embedder = _helper_embedder(env)
    assert embedder.embed_query("after the kill") == in_process().embed_query("after the kill")
    assert embedder.served_by_helper
    assert _pid_of(env) not in (None, pid)


def _kill_mid_batch(embedder: HelperEmbedder, pid: int) -> tuple[tuple[float, ...], ...]:
    """Send the busy batch, kill -9 the helper while it embeds it, return what came back."""
    got: list[tuple[tuple[float, ...], ...]] = []
    worker = threading.Thread(target=lambda: got.append(embedder.embed(BUSY_BATCH)))
    worker.start()
    time.sleep(0.2)
    os.kill(pid, signal.SIGKILL)
    worker.join(timeout=300)
    assert not worker.is_alive()
    return got[0]


def test_a_helper_killed_mid_request_is_replaced_for_the_next_command(
    env: dict[str, str],
) -> None:
    """A command whose helper dies under its batch starts a new one and sends it again."""
    _helper_embedder(env).embed_query("an earlier command started it")
    pid = _pid_of(env)
    assert pid is not None
    embedder = _helper_embedder(env)
    assert _kill_mid_batch(embedder, pid) == tuple(in_process().embed(BUSY_BATCH))
    assert embedder.served_by_helper
    assert _pid_of(env) not in (None, pid)


def test_a_helper_that_dies_again_costs_only_the_in_process_load(env: dict[str, str]) -> None:
    """A command that started the helper itself does not start a second: its batch is
    embedded in its own process, whole and exact."""
    embedder = _helper_embedder(env)
    embedder.embed_query("this command starts it")
    pid = _pid_of(env)
    assert pid is not None
    assert _kill_mid_batch(embedder, pid) == tuple(in_process().embed(BUSY_BATCH))
    assert not embedder.served_by_helper


def test_a_client_killed_mid_request_leaves_the_helper_serving(env: dict[str, str]) -> None:
    """kill -9 of a command while the helper embeds its batch ends only that request."""
    _helper_embedder(env).embed_query("start it")
    pid = _pid_of(env)
    script = (
        "import os, sys\n"
        "from memhtml.app.bootstrap.warm_helper import command_line_embedder\n"
        "e = command_line_embedder(os.environ)\n"
        "print('asking', flush=True)\n"
        f"e.embed({list(BUSY_BATCH)!r})\n"
    )
    client = subprocess.Popen(
        [sys.executable, "-c", script], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert client.stdout is not None
    assert client.stdout.readline() == b"asking\n"
    time.sleep(0.2)
    client.kill()
    client.wait(timeout=30)
    embedder = _helper_embedder(env)
    assert embedder.embed_query("still here") == in_process().embed_query("still here")
    assert (_pid_of(env), embedder.served_by_helper) == (pid, True)


def test_two_commands_starting_at_once_share_one_helper(env: dict[str, str]) -> None:
    """Both get their vector; the lock lets one helper live and the other leave."""
    script = (
        "import json, os\n"
        "from memhtml.app.bootstrap.warm_helper import command_line_embedder\n"
        "e = command_line_embedder(os.environ)\n"
        "print(json.dumps([e.embed_query('at once'), e.served_by_helper]))\n"
    )
    runs = [
        subprocess.Popen([sys.executable, "-c", script], env=env, stdout=subprocess.PIPE)
        for _ in range(2)
    ]
    answers = [json.loads(run.communicate(timeout=120)[0]) for run in runs]
    expected = list(in_process().embed_query("at once"))
    assert answers == [[expected, True], [expected, True]]
    assert _helpers_in(env["XDG_RUNTIME_DIR"]) == [_pid_of(env)]


def test_an_idle_helper_leaves_and_takes_its_socket(env: dict[str, str]) -> None:
    """After MEMHTML_EMBED_HELPER_IDLE seconds without a request the helper exits."""
    env["MEMHTML_EMBED_HELPER_IDLE"] = "1"
    _helper_embedder(env).embed_query("then nothing")
    pid = _pid_of(env)
    assert pid is not None
    assert _wait_gone(pid)
    place = helper_place(helper_key(env), env)
    assert not place.socket.exists()
    assert "stopped" in place.log.read_text()


def test_status_and_stop_from_the_command_line(env: dict[str, str]) -> None:
    """memhtml helper status names the live helper; memhtml helper stop ends it."""
    memhtml = Path(sys.executable).with_name("memhtml")

    def ask(*words: str) -> dict[str, object]:
        done = subprocess.run(
            [str(memhtml), "helper", *words], env=env, capture_output=True, check=False
        )
        assert done.returncode == 0, done.stderr
        answer: dict[str, object] = json.loads(done.stdout)["data"]
        return answer

    assert (ask("status")["running"], ask("status")["pid"]) == (False, None)
    _helper_embedder(env).embed_query("start it")
    pid = _pid_of(env)
    status = ask("status")
    assert (status["running"], status["pid"], status["idleSeconds"]) == (True, pid, 300)
    assert ask("stop")["pid"] == pid
    assert pid is not None
    assert _wait_gone(pid)
    assert ask("status")["running"] is False


def test_the_switch_and_other_backends_keep_embedding_in_process(env: dict[str, str]) -> None:
    """off, and backends that load no local model, never build the helper's client."""
    assert not isinstance(
        command_line_embedder({**env, "MEMHTML_EMBED_HELPER": "off"}), HelperEmbedder
    )
    assert command_line_embedder({**env, "MEMHTML_EMBED": "off"}) is None
    status = helper_status({**env, "MEMHTML_EMBED_HELPER": "off"})
    assert (status.enabled, status.reason) == (False, "MEMHTML_EMBED_HELPER is off")


def test_a_runtime_folder_that_is_not_a_folder_disables_the_helper(
    env: dict[str, str], caplog: pytest.LogCaptureFixture
) -> None:
    """Something else at the helper's folder: the command embeds in its own process."""
    (Path(env["XDG_RUNTIME_DIR"]) / "memhtml").write_text("not a folder")
    embedder = command_line_embedder(env)
    assert isinstance(embedder, OnnxMiniLmEmbedder)
    assert "embedding helper not used" in caplog.text


def test_an_open_runtime_folder_is_closed_before_use(env: dict[str, str]) -> None:
    """A folder others could enter is made private (0700) before a socket goes in it."""
    folder = Path(env["XDG_RUNTIME_DIR"]) / "memhtml"
    folder.mkdir(mode=0o777)
    folder.chmod(0o777)
    helper_place("0123456789abcdef", env)
    assert folder.stat().st_mode & 0o777 == 0o700


# --- Whole commands forwarded by the console script --------------------------------------

MEMHTML: Final = Path(sys.executable).with_name("memhtml")
# Runs the console script's entry point and reports, on stderr's last line, whether the
# program itself (click) was loaded: a forwarded command never loads it.
PROBE: Final = (
    "import atexit, sys\n"
    "atexit.register(lambda: print('click' in sys.modules, file=sys.stderr))\n"
    "from memhtml.app.cli.front_door import main\n"
    "sys.argv[0] = 'memhtml'\n"
    "main()\n"
)
OPS: Final = [
    {"op": "write", "title": t, "type": "semantic", "claim": c}
    for t, c in (
        ("Invoice export runs at 03:30 UTC", "The invoice export starts at 03:30 UTC."),
        ("Ledger lock holds 40 minutes", "The nightly ledger lock is held for 40 minutes."),
        ("Checkout pool size is 20", "The checkout service keeps 20 connections."),
    )
]


def _cli(
    args: list[str], env: Mapping[str, str], cwd: Path | None = None
) -> tuple[int, bytes, bool]:
    """Exit status, stdout, and whether the process loaded the program itself."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *args], env=env, cwd=cwd, capture_output=True, check=False
    )
    loaded = done.stderr.strip().splitlines()[-1] == b"True"
    return done.returncode, done.stdout, loaded


def _store(root: Path, env: Mapping[str, str], title: str) -> None:
    off = {**env, "MEMHTML_EMBED_HELPER": "off"}
    ops = [{**op, "title": f"{title}: {op['title']}"} for op in OPS]
    for args, stdin in (
        (["init", "--repo", str(root)], None),
        (["--repo", str(root), "apply"], "\n".join(json.dumps(op) for op in ops)),
        (["--repo", str(root), "index", "embed"], None),
    ):
        done = subprocess.run(
            [str(MEMHTML), *args], env=off, input=stdin, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stdout + done.stderr


def _steady(raw: bytes) -> bytes:
    """Output without the one figure that differs between two runs (milliseconds)."""
    return b"\n".join(line for line in raw.splitlines() if b"indexUpdateMs" not in line).replace(
        b"\n", b""
    )


def _warmed(root: Path, env: Mapping[str, str]) -> Path:
    """``root`` made a store of three memories, and a helper serving this configuration."""
    _store(root, env, "alpha")
    status, _, loaded = _cli(["--repo", str(root), "search", "start the helper"], env)
    assert (status, loaded, helper_status(env).running) == (0, True, True)
    return root


@pytest.fixture(scope="module")
def warm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[dict[str, str], Path]]:
    """One runtime folder, store and helper for the forwarding tests that leave both alone."""
    runtime = Path(tempfile.mkdtemp(prefix="mh-"))
    env = _helper_env(runtime)
    yield env, _warmed(tmp_path_factory.mktemp("warm") / "store", env)
    _stop_helpers(runtime)


@pytest.mark.parametrize(
    "args",
    [
        ["search", "when does the invoice export start"],
        ["--pretty", "search", "ledger lock", "--limit", "2"],
        ["recall", "checkout connections", "--budget", "300"],
        ["--dense", "search", "checkout", "--type", "semantic"],
        ["search", ""],
    ],
)
def test_a_forwarded_command_prints_what_it_would_print_here(
    warm: tuple[dict[str, str], Path], args: list[str]
) -> None:
    """Same status and output, byte for byte (but the milliseconds), without the program."""
    env, warm_store = warm
    args = ["--repo", str(warm_store), *args]
    status, out, loaded = _cli(args, env)
    here = _cli(args, {**env, "MEMHTML_EMBED_HELPER": "off"})
    assert (status, _steady(out), loaded) == (here[0], _steady(here[1]), False)


def test_a_forwarded_failure_is_the_same_failure(warm: tuple[dict[str, str], Path]) -> None:
    """A folder that is not a store: the same envelope and exit code 2."""
    env, warm_store = warm
    args = ["--repo", str(warm_store.parent / "nowhere"), "search", "anything"]
    status, out, loaded = _cli(args, env)
    assert (status, loaded) == (2, False)
    assert out == _cli(args, {**env, "MEMHTML_EMBED_HELPER": "off"})[1]
    assert json.loads(out)["code"] == "ERR_REPO_REQUIRED"


def test_the_command_runs_in_the_callers_folder_and_environment(
    warm: tuple[dict[str, str], Path], tmp_path: Path
) -> None:
    """The store is found from the caller's folder or MEMHTML_ROOT, command after command;
    nothing one command set stays for the next."""
    env, warm_store = warm
    other = tmp_path / "other"
    _store(other, env, "beta")

    def titles(cwd: Path, extra: Mapping[str, str]) -> set[str]:
        status, out, loaded = _cli(["search", "invoice export"], {**env, **extra}, cwd=cwd)
        assert (status, loaded) == (0, False)
        return {hit["title"].split(":")[0] for hit in json.loads(out)["data"]["hits"]}

    assert titles(other, {}) == {"beta"}
    assert titles(other / "resources", {"MEMHTML_ROOT": str(warm_store)}) == {"alpha"}
    assert titles(warm_store, {}) == {"alpha"}
    assert titles(other, {}) == {"beta"}


def test_a_helper_killed_before_the_command_costs_only_the_program_load(
    env: dict[str, str], warm: tuple[dict[str, str], Path]
) -> None:
    """Its socket left behind: the command runs here, with the same answer."""
    warm_store = warm[1]  # the store only: this test's helper lives in its own folder
    status, _, loaded = _cli(["--repo", str(warm_store), "search", "start the helper"], env)
    assert (status, loaded, helper_status(env).running) == (0, True, True)
    pid = _pid_of(env)
    assert pid is not None
    os.kill(pid, signal.SIGKILL)
    assert _wait_gone(pid)
    args = ["--repo", str(warm_store), "search", "ledger lock"]
    status, out, loaded = _cli(args, env)
    assert (status, loaded) == (0, True)
    assert _steady(out) == _steady(_cli(args, {**env, "MEMHTML_EMBED_HELPER": "off"})[1])


def test_reads_reuse_the_helpers_open_store_and_see_other_writers(
    warm: tuple[dict[str, str], Path], tmp_path: Path
) -> None:
    """Forwarded reads of one store share one open store in the helper (its log says so
    once), and still answer what another process wrote in between, as a process of its own
    would."""
    env = warm[0]
    root = tmp_path / "held"
    _store(root, env, "gamma")
    repo = ["--repo", str(root)]
    for query in ("invoice export", "ledger lock", "checkout pool"):
        assert _cli([*repo, "search", query], env)[:3:2] == (0, False)
    _here(
        [
            *repo,
            "write",
            "--type",
            "semantic",
            "--title",
            "Zebra crossing moved",
            "--claim",
            "The zebra crossing moved north.",
        ],
        env,
    )
    args = [*repo, "search", "zebra crossing"]
    status, out, loaded = _cli(args, env)
    assert (status, loaded) == (0, False)
    assert json.loads(out)["data"]["hits"][0]["title"] == "Zebra crossing moved"
    assert _steady(out) == _steady(_cli(args, {**env, "MEMHTML_EMBED_HELPER": "off"})[1])
    log = helper_place(helper_key(env), env).log.read_text()
    assert log.count(f"holding the store at {root} ") == 1


@pytest.mark.parametrize("backend", ["local", "off"])
def test_a_helper_started_from_a_folder_holding_another_memhtml_is_this_one(
    env: dict[str, str], warm: tuple[dict[str, str], Path], tmp_path: Path, backend: str
) -> None:
    """Started from a folder holding a ``memhtml`` package (a source checkout, say), the
    helper still runs this installation, whichever way it is started: by a command that
    embeds (``local``) or in the background by a forwardable one (``off``)."""
    decoy = tmp_path / "checkout"
    (decoy / "memhtml").mkdir(parents=True)
    (decoy / "memhtml" / "__init__.py").write_text("raise SystemExit(7)\n", encoding="utf-8")
    env = {**env, "MEMHTML_EMBED": backend}
    done = subprocess.run(
        [str(MEMHTML), "--repo", str(warm[1]), "search", "ledger lock"],
        env=env,
        cwd=decoy,
        capture_output=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    deadline = time.monotonic() + 30
    while not helper_status(env).running and time.monotonic() < deadline:
        time.sleep(0.2)
    assert helper_status(env).running


def _here(args: list[str], env: Mapping[str, str]) -> dict[str, Any]:
    """One command in its own process (the helper off), its envelope's data."""
    done = subprocess.run(
        [str(MEMHTML), *args], env={**env, "MEMHTML_EMBED_HELPER": "off"}, capture_output=True
    )
    assert done.returncode == 0, done.stdout + done.stderr
    data: dict[str, Any] = json.loads(done.stdout)["data"]
    return data


def test_a_forwarded_write_is_a_write(warm: tuple[dict[str, str], Path]) -> None:
    """It commits once and prints what a write prints; the store stays healthy."""
    env, root = warm
    repo = ["--repo", str(root)]
    write = [*repo, "write", "--type", "semantic", "--tag", "billing"]
    status, out, loaded = _cli(
        [*write, "--title", "Forwarded fact", "--claim", "The forwarded write landed."], env
    )
    assert (status, loaded) == (0, False)
    written = json.loads(out)
    here = _here([*write, "--title", "Local fact", "--claim", "This one ran here."], env)
    assert (written["type"], list(written["data"])) == ("memory.written", list(here))
    detail = _here([*repo, "read", written["data"]["path"]], env)
    assert detail["title"] == "Forwarded fact"
    _here([*repo, "index", "embed"], env)  # writes leave their vectors to later (issue 18)
    assert _here([*repo, "doctor"], env)["healthy"] is True


def _sending_probe(then: str) -> str:
    """A caller that sends its command as the front door does, says ``sent`` on stderr, then
    runs ``then`` (a statement) instead of going on."""
    return (
        "import sys, time\n"
        "import memhtml.adapters.warm.commands as commands\n"
        "plain = commands.send_frame\n"
        "def send_then_say(*args, **kwargs):\n"
        "    plain(*args, **kwargs)\n"
        "    print('sent', file=sys.stderr, flush=True)\n"
        f"    {then}\n"
        "commands.send_frame = send_then_say\n"
        "from memhtml.app.cli.front_door import main\n"
        "sys.argv[0] = 'memhtml'\n"
        "main()\n"
    )


def _write_from(
    probe: str, root: Path, title: str, claim: str, env: Mapping[str, str]
) -> subprocess.Popen[bytes]:
    """``memhtml write`` run by ``probe``, once it said it sent the command."""
    write = ["write", "--type", "semantic", "--title", title, "--claim", claim]
    caller = subprocess.Popen(
        [sys.executable, "-c", probe, "--repo", str(root), *write],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert caller.stderr is not None
    assert caller.stderr.readline() == b"sent\n"
    return caller


def test_a_forwarded_write_whose_caller_is_killed_lands_once(
    warm: tuple[dict[str, str], Path],
) -> None:
    """kill -9 of the command once its write is in the helper's hands: the write finishes
    there, exactly once, and the store is healthy; the helper keeps serving."""
    env, root = warm
    title = "Written after its caller died"
    claim = "The helper finished this write alone."
    caller = _write_from(_sending_probe("time.sleep(60)"), root, title, claim, env)
    caller.kill()
    caller.wait(timeout=30)
    deadline = time.monotonic() + 30
    while True:
        titles = [
            hit["title"]
            for hit in _here(["--repo", str(root), "list", "--limit", "500"], env)["files"]
        ]
        if title in titles or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert titles.count(title) == 1
    _here(["--repo", str(root), "index", "embed"], env)
    assert _here(["--repo", str(root), "doctor"], env)["healthy"] is True
    status, _, loaded = _cli(["--repo", str(root), "search", "caller died"], env)
    assert (status, loaded) == (0, False)


def test_a_lexical_only_store_gets_a_helper_for_its_commands(
    env: dict[str, str], warm: tuple[dict[str, str], Path]
) -> None:
    """MEMHTML_EMBED=off: nothing embeds, so the first forwardable command starts the helper
    in the background and runs in its own process; the next ones run in the helper."""
    lexical = {**env, "MEMHTML_EMBED": "off"}
    args = ["--repo", str(warm[1]), "search", "ledger lock"]
    status, first, loaded = _cli(args, lexical)
    assert (status, loaded) == (0, True)
    deadline = time.monotonic() + 30
    while not helper_status(lexical).running and time.monotonic() < deadline:
        time.sleep(0.1)
    status, out, loaded = _cli(args, lexical)
    assert (status, loaded) == (0, False)
    assert _steady(out) == _steady(first)
    assert json.loads(out)["data"]["arms"] == json.loads(first)["data"]["arms"]


@pytest.mark.parametrize("delay", [0.0, 0.05, 0.1])
def test_a_helper_killed_under_a_forwarded_write_leaves_it_written_once(
    env: dict[str, str], warm: tuple[dict[str, str], Path], delay: float
) -> None:
    """kill -9 of the helper at several moments of a write it was running: the command
    falls back to its own process, which finishes or undoes the killed commit first and then
    writes, or finds the content written (writes are keyed by their content), so the memory
    exists exactly once and the store is healthy."""
    root = warm[1]
    _cli(["--repo", str(root), "search", "start this test's helper"], env)
    # A forwarded command waits until the helper has imported the program: so the write
    # below starts at once and the kill lands inside it, not before it.
    assert _cli(["--repo", str(root), "search", "the runner is ready"], env)[2] is False
    pid = _pid_of(env)
    assert pid is not None
    title = f"Written while its helper died ({delay})"
    claim = f"This write lost its helper after {delay} s."
    caller = _write_from(_sending_probe("pass"), root, title, claim, env)
    time.sleep(delay)
    os.kill(pid, signal.SIGKILL)
    out, _ = caller.communicate(timeout=120)
    assert caller.returncode == 0, out
    written = json.loads(out)["data"]
    assert written["created"] or written["deduped"]
    titles = [
        hit["title"] for hit in _here(["--repo", str(root), "list", "--limit", "500"], env)["files"]
    ]
    assert titles.count(title) == 1
    _here(["--repo", str(root), "index", "embed"], env)
    assert _here(["--repo", str(root), "doctor"], env)["healthy"] is True


def _git_subjects(root: Path) -> list[str]:
    done = subprocess.run(
        ["git", "-C", str(root), "log", "--format=%s"], capture_output=True, text=True, check=True
    )
    return done.stdout.splitlines()


@pytest.mark.parametrize(
    ("command", "step"),
    [("archive", "commit.ref"), ("correct", "mutation.committed")],
)
def test_a_helper_killed_after_committing_a_move_leaves_it_done_once_and_reported_done(
    env: dict[str, str], tmp_path: Path, command: str, step: str
) -> None:
    """The helper kills itself (SIGKILL) right after its commit moved the ref, or after the
    whole commit; the command then runs in its own process, armed the same way. Were it to
    commit again it would die at the same step: its exit 0 shows it found the helper's commit
    by its request id and reported it, where it used to answer "no memory at <path>" (or, for
    a correction keeping its title, "duplicate content"). One commit, a healthy store."""
    root = tmp_path / "store"
    _store(root, env, "moved")
    armed = {**env, "MEMHTML_FAULT_AT": step}
    status, _, loaded = _cli(["--repo", str(root), "search", "start an armed helper"], armed)
    assert (status, loaded, helper_status(env).running) == (0, True, True)
    pid = _pid_of(env)
    assert pid is not None
    target = next(
        hit
        for hit in _here(["--repo", str(root), "list"], env)["files"]
        if hit["title"].endswith("Ledger lock holds 40 minutes")
    )
    args = (
        ["archive", target["path"], "--reason", "no longer true"]
        if command == "archive"
        else ["correct", target["path"], "--title", target["title"], "--claim", "Now 25 minutes."]
    )
    before = len(_git_subjects(root))
    status, out, loaded = _cli(["--repo", str(root), *args], armed)
    assert (status, loaded) == (0, True), out
    assert _wait_gone(pid)
    data = json.loads(out)["data"]
    subjects = _git_subjects(root)
    assert (before + 1, f"memhtml({command})") == (len(subjects), subjects[0].split(":")[0])
    head = subprocess.run(
        ["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert (head, True) == (data["commitSha"], data["archivedPath"].startswith("archive/"))
    listed = {hit["path"] for hit in _here(["--repo", str(root), "list"], env)["files"]}
    assert (command == "correct") == (target["path"] in listed)
    _here(["--repo", str(root), "index", "embed"], env)  # the successor's vector, left pending
    assert _here(["--repo", str(root), "doctor"], env)["healthy"] is True
