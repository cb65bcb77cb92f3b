"""The state-side ports in memory: reinforcement, the sidecar, the recorder."""

from __future__ import annotations

from collections.abc import Sequence

from memhtml.adapters.memory.tables import MemoryTables
from memhtml.domain.errors import InvalidInput
from memhtml.domain.instants import instant_ms
from memhtml.domain.reinforce import ReinforceResult, Signal, merge_access, reinforce_step
from memhtml.domain.sidecar import parse_sidecar, render_sidecar
from memhtml.domain.sync_sidecar import move_access_rows
from memhtml.domain.vocabulary import TASK_TYPE
from memhtml.ports.recorder import SessionLink
from memhtml.ports.state_plane import StateImport


class MemoryAccessStore:
    """The :class:`memhtml.ports.access_store.AccessStore` port over ``reinforce_step``."""

    def __init__(self, tables: MemoryTables) -> None:
        """Bump the access rows of ``tables``."""
        self._t = tables

    def missing_paths(self, paths: Sequence[str]) -> tuple[str, ...]:
        """See ``AccessStore.missing_paths``."""
        return tuple(p for p in dict.fromkeys(paths) if p not in self._t.files)

    def reinforce(self, paths: Sequence[str], signal: Signal, now: str) -> ReinforceResult:
        """See ``AccessStore.reinforce``."""
        if instant_ms(now) is None:
            raise InvalidInput(f"not a readable instant: {now!r}")
        unique = tuple(dict.fromkeys(paths))
        bumped: list[str] = []
        with self._t.transaction("reinforce"):
            for path in unique:
                row = reinforce_step(path, self._t.access.get(path), signal, now)
                if row is not None:
                    self._t.access[path] = row
                    bumped.append(path)
        return ReinforceResult(
            bumped=tuple(bumped), cooled_down=tuple(p for p in unique if p not in bumped)
        )


class MemoryStatePlane:
    """The :class:`memhtml.ports.state_plane.StatePlane` port over the domain's sidecar rules."""

    def __init__(self, tables: MemoryTables) -> None:
        """Serve the state plane of ``tables``."""
        self._t = tables

    def export_access(self) -> str:
        """See ``StatePlane.export_access``."""
        return render_sidecar(self._t.access[path] for path in sorted(self._t.access))

    def import_access(self, sidecar: str) -> StateImport:
        """See ``StatePlane.import_access``."""
        parsed = parse_sidecar(sidecar)
        with self._t.transaction("import access rows"):
            for row in parsed.rows:
                self._t.access[row.path] = merge_access(self._t.access.get(row.path), row)
        return StateImport(merged=len(parsed.rows), skipped=parsed.skipped)

    def move_access(self, moves: Sequence[tuple[str, str]]) -> int:
        """See ``StatePlane.move_access``."""
        count = 0
        with self._t.transaction("move access rows"):
            for source, target in moves:
                if source == target or source not in self._t.access:
                    continue
                moved = move_access_rows(self._t.access, [(source, target)])
                self._t.access.clear()
                self._t.access.update(moved)
                count += 1
        return count


class MemoryRecorder:
    """The :class:`memhtml.ports.recorder.Recorder` port in memory."""

    def __init__(self, tables: MemoryTables) -> None:
        """Record into ``tables``."""
        self._t = tables

    def active_path_for_hash(self, content_hash: str) -> str | None:
        """See ``Recorder.active_path_for_hash``."""
        holders = [
            path
            for path, row in self._t.files.items()
            if row.content_hash == content_hash
            and not row.archived
            and row.memory_type != TASK_TYPE
        ]
        return min(holders) if holders else None

    def record_session_links(self, links: Sequence[SessionLink]) -> None:
        """See ``Recorder.record_session_links``."""
        with self._t.transaction("record session links"):
            for link in links:
                key = (link.path, link.session_id, link.kind, link.at)
                self._t.session_links.setdefault(key, link)

    def session_links(
        self, *, path: str | None = None, session_id: str | None = None
    ) -> tuple[SessionLink, ...]:
        """See ``Recorder.session_links``."""
        chosen = [
            link
            for link in self._t.session_links.values()
            if (path is None or link.path == path)
            and (session_id is None or link.session_id == session_id)
        ]
        return tuple(sorted(chosen, key=lambda k: (k.at, k.path, k.session_id, k.kind)))
