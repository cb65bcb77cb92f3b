"""inotify's event records and what each means for status: pure rules, no kernel."""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from memhtml.adapters.git.inotify_events import (
    IN_ATTRIB,
    IN_CLOSE_WRITE,
    IN_CREATE,
    IN_DELETE,
    IN_DELETE_SELF,
    IN_IGNORED,
    IN_ISDIR,
    IN_MODIFY,
    IN_MOVE_SELF,
    IN_MOVED_FROM,
    IN_MOVED_TO,
    IN_Q_OVERFLOW,
    IN_UNMOUNT,
    NOTHING,
    RESTART,
    Action,
    Area,
    Effect,
    Place,
    WatchEvent,
    decode_events,
    effect_of,
    encode_event,
    join,
)
from memhtml.ports.tree_watch import UNKNOWN, TreeNews

FILE_MASKS = (
    IN_MODIFY,
    IN_ATTRIB,
    IN_CLOSE_WRITE,
    IN_MOVED_FROM,
    IN_MOVED_TO,
    IN_CREATE,
    IN_DELETE,
)
names = st.binary(min_size=1, max_size=40).filter(lambda n: b"\x00" not in n and b"/" not in n)
file_names = names.filter(lambda n: n not in (b".git", b".gitignore"))
events = st.builds(
    WatchEvent,
    wd=st.integers(min_value=-1, max_value=2**31 - 1),
    mask=st.integers(min_value=0, max_value=2**32 - 1),
    cookie=st.integers(min_value=0, max_value=2**32 - 1),
    name=st.one_of(st.just(b""), names),
)
relatives = st.one_of(st.just(b""), st.lists(file_names, min_size=1, max_size=3).map(b"/".join))


def never(_path: bytes) -> bool:
    return False


def always(_path: bytes) -> bool:
    return True


@given(st.lists(st.tuples(events, st.integers(min_value=0, max_value=16)), max_size=8))
@example([(WatchEvent(wd=1, mask=IN_MODIFY, cookie=0, name=b"a.html"), 3)])
def test_decoding_returns_the_records_written(records: list[tuple[WatchEvent, int]]) -> None:
    """Whatever the NUL padding, decoding the kernel's layout gives back every record."""
    buffer = b"".join(encode_event(event, padding) for event, padding in records)
    assert tuple(event for event, _ in records) == decode_events(buffer)


@given(st.lists(events, min_size=1, max_size=4), st.data())
def test_a_buffer_cut_inside_a_record_is_refused(
    records: list[WatchEvent], data: st.DataObject
) -> None:
    """The kernel hands out whole records; a cut one is an error, never a shorter name."""
    buffer = b"".join(encode_event(event, 4) for event in records)
    cut = data.draw(st.integers(min_value=1, max_value=len(buffer) - 1))
    boundaries = set()
    offset = 0
    for event in records:
        offset += len(encode_event(event, 4))
        boundaries.add(offset)
    if cut in boundaries:
        assert records[: len(decode_events(buffer[:cut]))] == list(decode_events(buffer[:cut]))
    else:
        with pytest.raises(ValueError, match="truncated"):
            decode_events(buffer[:cut])


@given(events, st.sampled_from(list(Area)), relatives, st.booleans())
def test_an_overflow_always_restarts(
    event: WatchEvent, area: Area, relative: bytes, retired: bool
) -> None:
    """``IN_Q_OVERFLOW`` means events were dropped: walk everything, wherever it points."""
    overflow = WatchEvent(wd=-1, mask=event.mask | IN_Q_OVERFLOW, cookie=0, name=event.name)
    place = Place(area=area, relative=relative)
    assert RESTART == effect_of(overflow, place, retired=retired, prune=never)


@given(events, st.booleans())
def test_an_unknown_watch_restarts_unless_we_retired_it(event: WatchEvent, retired: bool) -> None:
    """An event on a descriptor we never placed cannot be placed; one we dropped is stale."""
    event = WatchEvent(wd=event.wd, mask=event.mask & ~IN_Q_OVERFLOW, cookie=0, name=event.name)
    expected = NOTHING if retired else RESTART
    assert expected == effect_of(event, None, retired=retired, prune=never)


@given(st.sampled_from(list(Area)), relatives, st.sampled_from((IN_IGNORED, IN_UNMOUNT)))
def test_a_watch_the_kernel_drops_restarts(area: Area, relative: bytes, mask: int) -> None:
    """A watch we still hold, dropped or unmounted under us: nothing can be trusted."""
    event = WatchEvent(wd=3, mask=mask, cookie=0, name=b"")
    assert RESTART == effect_of(
        event, Place(area=area, relative=relative), retired=False, prune=never
    )


@given(relatives, file_names, st.sampled_from(FILE_MASKS))
def test_a_file_event_in_the_tree_names_exactly_that_path(
    relative: bytes, name: bytes, mask: int
) -> None:
    """A file created, written, renamed or deleted in a watched folder is re-checked."""
    event = WatchEvent(wd=3, mask=mask, cookie=0, name=name)
    place = Place(area=Area.TREE, relative=relative)
    expected = Effect(action=Action.TOUCH, path=join(relative, name))
    assert expected == effect_of(event, place, retired=False, prune=always)


@given(relatives, file_names)
def test_directory_events_in_the_tree(relative: bytes, name: bytes) -> None:
    """A folder created is watched and listed, one deleted re-checked, one moved restarts,
    and a pruned (ignored) folder is left alone whatever happens to it."""
    place = Place(area=Area.TREE, relative=relative)
    path = join(relative, name)

    def effect(mask: int, prune: bool) -> Effect:
        event = WatchEvent(wd=3, mask=mask | IN_ISDIR, cookie=0, name=name)
        return effect_of(event, place, retired=False, prune=always if prune else never)

    assert (
        Effect(action=Action.NEW_DIRECTORY, path=path),
        Effect(action=Action.TOUCH, path=path),
        RESTART,
        RESTART,
        NOTHING,
        NOTHING,
    ) == (
        effect(IN_CREATE, False),
        effect(IN_DELETE, False),
        effect(IN_MOVED_FROM, False),
        effect(IN_MOVED_TO, False),
        effect(IN_CREATE, True),
        effect(IN_MOVED_FROM, True),
    )


@given(relatives, st.sampled_from(FILE_MASKS))
def test_an_ignore_file_restarts(relative: bytes, mask: int) -> None:
    """A ``.gitignore`` anywhere changes what status walks."""
    event = WatchEvent(wd=3, mask=mask, cookie=0, name=b".gitignore")
    place = Place(area=Area.TREE, relative=relative)
    assert RESTART == effect_of(event, place, retired=False, prune=never)


def test_a_watched_folder_deleted_or_moved() -> None:
    """Its own deletion names it (its parent's event may be lost with it); its move, or the
    root's own deletion, restarts."""
    place = Place(area=Area.TREE, relative=b"projects/p")
    gone = WatchEvent(wd=3, mask=IN_DELETE_SELF, cookie=0, name=b"")
    moved = WatchEvent(wd=3, mask=IN_MOVE_SELF, cookie=0, name=b"")
    root = Place(area=Area.TREE, relative=b"")
    assert (Effect(action=Action.GONE_DIRECTORY, path=b"projects/p"), RESTART, RESTART) == (
        effect_of(gone, place, retired=False, prune=never),
        effect_of(moved, place, retired=False, prune=never),
        effect_of(gone, root, retired=False, prune=never),
    )


@pytest.mark.parametrize(
    ("area", "name", "mask", "expected"),
    [
        (Area.GIT, b"index", IN_MOVED_TO, Action.GIT_STATE),
        (Area.GIT, b"HEAD", IN_CLOSE_WRITE, Action.GIT_STATE),
        (Area.GIT, b"packed-refs", IN_MOVED_TO, Action.GIT_STATE),
        (Area.GIT, b"index.lock", IN_CREATE, Action.NOTHING),
        (Area.GIT, b"COMMIT_EDITMSG", IN_CLOSE_WRITE, Action.NOTHING),
        (Area.GIT, b"config", IN_MOVED_TO, Action.RESTART),
        (Area.GIT, b"info", IN_CREATE | IN_ISDIR, Action.RESTART),
        (Area.INFO, b"exclude", IN_CLOSE_WRITE, Action.RESTART),
        (Area.INFO, b"attributes", IN_CLOSE_WRITE, Action.NOTHING),
        (Area.REFS, b"main", IN_MOVED_TO, Action.GIT_STATE),
        (Area.REFS, b"main.lock", IN_DELETE, Action.GIT_STATE),
        (Area.REFS, b"feature", IN_CREATE | IN_ISDIR, Action.RESTART),
        (Area.TREE, b".git", IN_CREATE | IN_ISDIR, Action.RESTART),
        (Area.TREE, b".git", IN_ATTRIB | IN_ISDIR, Action.NOTHING),
    ],
)
def test_git_state_events(area: Area, name: bytes, mask: int, expected: Action) -> None:
    """What in the git directory decides status, and what is only git's own scratch."""
    event = WatchEvent(wd=3, mask=mask, cookie=0, name=name)
    effect = effect_of(event, Place(area=area, relative=b""), retired=False, prune=never)
    assert expected == effect.action


def test_news_is_quiet_only_when_complete_and_empty() -> None:
    """``quiet`` promises nothing happened; an unknown answer is never quiet."""
    assert (True, False, False, False) == (
        TreeNews(complete=True).quiet,
        UNKNOWN.quiet,
        TreeNews(complete=True, git_state=True).quiet,
        TreeNews(complete=True, paths=frozenset({b"a"})).quiet,
    )
