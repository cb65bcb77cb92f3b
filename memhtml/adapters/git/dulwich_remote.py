"""``GitRemote`` over dulwich's transports (file, ssh, http(s), git): fetch and push one branch.

The transport is whatever dulwich picks for the URL, configured as git would configure it: the
repository's config stack (``url.<base>.insteadOf``, ``http.*``, ``core.sshCommand``) and
``GIT_SSH_COMMAND``/``GIT_SSH`` from the environment. Credentials stay where the user put
them (the URL, an ssh agent, the config); every message here names the remote and its
redacted URL only.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Final

from dulwich.client import (
    GitClient,
    HTTPProxyUnauthorized,
    HTTPUnauthorized,
    LocalGitClient,
    get_transport_and_path,
)
from dulwich.errors import GitProtocolError, HangupException, NotGitRepository
from dulwich.objects import ObjectID
from dulwich.pack import UnpackedObject, generate_unpacked_objects
from dulwich.refs import Ref
from dulwich.repo import Repo

from memhtml.adapters.git.failures import git_operation
from memhtml.adapters.git.local_fetch import ancestry, fetch_local, missing_objects
from memhtml.adapters.git.remote_config import (
    BRANCH_REF,
    redact,
    remote_url,
    scrub,
    tracking_ref,
    write_remote,
)
from memhtml.adapters.git.repository import open_repository
from memhtml.adapters.git.sync_marks import read_marks, write_mark
from memhtml.ports.errors import GitFailure
from memhtml.ports.git_remote import (
    PushRejected,
    RemoteInfo,
    RemoteMissing,
    RemoteUnreachable,
    SyncMark,
)
from memhtml.ports.progress import NO_PROGRESS, ProgressSink

PHASE_FETCHING: Final = "fetching"
PHASE_PUSHING: Final = "pushing"
FETCH_OPERATION: Final = "fetch"
PUSH_OPERATION: Final = "push"
STALE: Final = "its branch moved since it was fetched"
# From this many objects sent, a push looks for deltas its packs hold to send them as deltas.
# The search reads every object of every local pack, so below it (a sync's few new memories)
# it costs far more than the bytes it saves.
REUSE_DELTAS_FROM: Final = 2_000
_COUNTER: Final = re.compile(rb"\((\d+)/(\d+)\)|: (\d+)/(\d+)")
_REASONS: Final[tuple[tuple[type[BaseException], str], ...]] = (
    (HTTPUnauthorized, "the remote refused the credentials"),
    (HTTPProxyUnauthorized, "the proxy refused the credentials"),
    (NotGitRepository, "not a git repository"),
    (HangupException, "the remote hung up"),
    (GitProtocolError, "the remote broke the git protocol"),
    (ConnectionError, "connection failed"),
    (TimeoutError, "timed out"),
    (FileNotFoundError, "no such repository or command"),
    (OSError, "connection failed"),
)


class DulwichRemote:
    """The remotes of the repository at ``root``."""

    def __init__(self, root: str | Path, *, env: Mapping[str, str] | None = None) -> None:
        """Bind to a repository; ``env`` is where ``GIT_SSH_COMMAND``/``GIT_SSH`` are read
        (``os.environ`` at call time by default)."""
        self._root = str(root)
        self._env = env

    def remote(self, name: str) -> RemoteInfo:
        """See ``GitRemote.remote``."""
        with self._repo("remote") as repo:
            url = remote_url(repo, name)
        if url is None:
            raise RemoteMissing(name)
        return RemoteInfo(name=name, url=redact(url))

    def set_remote(self, name: str, url: str) -> bool:
        """See ``GitRemote.set_remote``."""
        with self._repo("set remote") as repo:
            return write_remote(repo, name, url)

    def fetch(self, name: str, *, progress: ProgressSink = NO_PROGRESS) -> str | None:
        """See ``GitRemote.fetch``."""
        with self._repo(FETCH_OPERATION) as repo, self._transport(repo, name, "pull") as client:
            transport, path = client

            def wants(refs: Mapping[Ref, ObjectID], depth: int | None = None) -> list[ObjectID]:
                sha = refs.get(Ref(BRANCH_REF))
                return [sha] if sha is not None and sha not in repo.object_store else []

            with _counted(progress, PHASE_FETCHING) as report:
                refs: Mapping[Ref, ObjectID | None] | None
                if isinstance(transport, LocalGitClient):
                    refs = fetch_local(path, repo, wants, report)
                else:
                    refs = transport.fetch(path, repo, determine_wants=wants, progress=report).refs
            sha = (refs or {}).get(Ref(BRANCH_REF))
            ref = Ref(tracking_ref(name))
            if sha is None:
                repo.refs.remove_if_equals(ref, None)
                return None
            repo.refs[ref] = sha
            return sha.decode("ascii")

    def tracking(self, name: str) -> str | None:
        """See ``GitRemote.tracking``."""
        with self._repo("tracking") as repo:
            sha = repo.refs.as_dict().get(Ref(tracking_ref(name)))
        return None if sha is None else sha.decode("ascii")

    def push(
        self,
        name: str,
        *,
        new: str,
        expected: str | None,
        progress: ProgressSink = NO_PROGRESS,
    ) -> None:
        """See ``GitRemote.push``."""
        with self._repo(PUSH_OPERATION) as repo, self._transport(repo, name, "push") as client:
            transport, path = client
            moved: list[bool] = []
            new_sha = ObjectID(new.encode("ascii"))

            def update_refs(refs: dict[Ref, ObjectID]) -> dict[Ref, ObjectID]:
                current = refs.get(Ref(BRANCH_REF))
                if (None if current is None else current.decode("ascii")) != expected:
                    moved.append(True)
                    return {}
                return {Ref(BRANCH_REF): new_sha}

            def pack_data(have, want, *, ofs_delta=False, progress=None):  # type: ignore[no-untyped-def]
                return _pack_data(repo, have, want, ofs_delta=ofs_delta, progress=progress)

            with _counted(progress, PHASE_PUSHING) as report:
                result = transport.send_pack(
                    path.encode("utf-8"), update_refs, generate_pack_data=pack_data, progress=report
                )
            if moved:
                raise PushRejected(name, STALE, moved=True)
            status = (result.ref_status or {}).get(Ref(BRANCH_REF))
            if status is not None:
                raise PushRejected(name, scrub(str(status)), moved=False)
            repo.refs[Ref(tracking_ref(name))] = new_sha

    def last_sync(self, name: str) -> SyncMark | None:
        """See ``GitRemote.last_sync``."""
        with self._repo("last sync") as repo:
            return read_marks(Path(repo.controldir())).get(name)

    def record_sync(self, mark: SyncMark) -> None:
        """See ``GitRemote.record_sync``."""
        with self._repo("record sync") as repo:
            write_mark(Path(repo.controldir()), mark)

    @contextmanager
    def _repo(self, operation: str) -> Iterator[Repo]:
        with git_operation(operation), open_repository(self._root, operation) as repo:
            yield repo

    @contextmanager
    def _transport(self, repo: Repo, name: str, kind: str) -> Iterator[tuple[GitClient, str]]:
        """The client and path for remote ``name``; transport failures become
        ``RemoteUnreachable`` naming the redacted URL."""
        url = remote_url(repo, name)
        if url is None:
            raise RemoteMissing(name)
        operation = FETCH_OPERATION if kind == "pull" else PUSH_OPERATION
        env = os.environ if self._env is None else self._env
        ssh = env.get("GIT_SSH_COMMAND") or env.get("GIT_SSH") or None
        try:
            client, path = get_transport_and_path(
                url, config=repo.get_config_stack(), operation=kind, ssh_command=ssh, quiet=True
            )
            yield client, path
        except (GitFailure, GeneratorExit):
            raise
        except Exception as error:
            raise RemoteUnreachable(operation, name, redact(url), _reason(error)) from error


def _pack_data(
    repo: Repo,
    have: Iterable[ObjectID],
    want: Iterable[ObjectID],
    *,
    ofs_delta: bool,
    progress: Callable[[bytes], None] | None,
) -> tuple[int, Iterator[UnpackedObject]]:
    """The objects a push sends: what ``want`` reaches that ``have`` does not.

    Found as a local fetch finds them (``local_fetch.missing_objects``): dulwich's search
    collects every object of the common commits' trees first.
    """
    held = ancestry(repo.object_store, have)
    ids = missing_objects(repo.object_store, held.__contains__, list(want))
    return len(ids), generate_unpacked_objects(
        repo.object_store,
        [(sha, None) for sha in ids],
        reuse_deltas=len(ids) >= REUSE_DELTAS_FROM,
        ofs_delta=ofs_delta,
        progress=progress,
    )


def _reason(error: BaseException) -> str:
    for kind, reason in _REASONS:
        if isinstance(error, kind):
            return reason
    return f"transport error ({type(error).__name__})"


@contextmanager
def _counted(progress: ProgressSink, phase: str) -> Iterator[Callable[[bytes], None]]:
    """A transport progress callback feeding ``progress``: the ``n/total`` counters of the
    remote's messages become units of ``phase``; the messages themselves are dropped."""
    state = {"total": -1, "done": 0}

    def report(message: bytes) -> None:
        for match in _COUNTER.finditer(message):
            done = int(match.group(1) or match.group(3))
            total = int(match.group(2) or match.group(4))
            if total != state["total"]:
                progress.start(phase, total)
                state["total"], state["done"] = total, 0
            step = min(done, total) - state["done"]
            if step > 0:
                progress.advance(step)
                state["done"] += step

    try:
        yield report
    finally:
        if state["total"] >= 0:
            progress.finish()
