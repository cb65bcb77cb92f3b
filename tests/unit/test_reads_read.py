"""``read``: the file's fields, a neutral salience bump, a session link, never a stale failure."""

from __future__ import annotations

import attrs
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from memhtml.adapters.html import parse_memory
from memhtml.app.use_cases.read import (
    ReadPorts,
    article_inner_html,
    present_metas,
    read_with,
)
from memhtml.app.use_cases.write import write_memory
from memhtml.domain.errors import InvalidInput, NotFound
from memhtml.domain.model import MemoryDoc
from memhtml.domain.reinforce import Signal
from memhtml.domain.write_requests import WriteRequest
from memhtml.ports.errors import StorageFailure
from memhtml.ports.recorder import SessionLink
from tests.fakes.read_plane import FakeRetrieval
from tests.fakes.write_plane import FakeStore, fake_store

NOTE = WriteRequest(
    title="Ledger lock holds for 40 minutes",
    memory_type="semantic",
    claim="The nightly ledger lock is held for about 40 minutes.",
    tags=("billing",),
    entities=("service:ledger",),
)


def _ports(store: FakeStore) -> tuple[ReadPorts, FakeRetrieval]:
    retrieval = FakeRetrieval(store.index)
    ports = ReadPorts(
        git=store.git,
        indexer=store.index,
        retrieval=retrieval,
        recorder=store.index,
        clock=store.clock,
        parse=parse_memory,
        embed=False,
    )
    return ports, retrieval


def _written() -> tuple[FakeStore, str]:
    store = fake_store()
    path = write_memory(store.deps, NOTE).path
    return store, path


def test_read_answers_the_files_fields_with_the_leading_slash_stripped() -> None:
    """A read of ``/path`` reports the path without the slash and the head's values."""
    store, path = _written()
    ports, _ = _ports(store)
    result = read_with(ports, "/" + path)
    assert path == result.path
    assert NOTE.title == result.title
    assert ("service:ledger",) == result.entities
    assert ("billing",) == result.tags
    assert NOTE.claim == result.gist
    assert result.archived is False
    assert result.index_fresh is True


def test_read_bumps_once_with_the_neutral_signal() -> None:
    """Reading is use: the port is asked to bump exactly that path, neutrally."""
    store, path = _written()
    ports, retrieval = _ports(store)
    read_with(ports, path)
    assert [((path,), Signal.NEUTRAL)] == retrieval.reinforced


def test_read_files_a_read_session_link_when_a_session_is_named() -> None:
    """With a session id one ``read`` link lands; without one none does."""
    store, path = _written()
    ports, _ = _ports(store)
    read_with(ports, path)
    read_with(ports, path, session_id="s-9", prompt_id="p-1")
    links = [(link.path, link.kind, link.prompt_id) for link in store.index.links]
    assert [(path, "read", "p-1")] == links


def test_read_lists_the_sessions_that_touched_the_memory() -> None:
    """One entry per session, its kinds in vocabulary order, first and last touch; this read's
    own link included."""
    store, path = _written()
    ports, _ = _ports(store)
    store.index.record_session_links(
        [
            SessionLink(path=path, session_id="s-1", kind="reinforced", at="2026-01-03T00:00:00Z"),
            SessionLink(path=path, session_id="s-1", kind="wrote", at="2026-01-01T00:00:00Z"),
            SessionLink(
                path="areas/other.html", session_id="s-3", kind="read", at="2026-01-01T00:00:00Z"
            ),
        ]
    )
    first = read_with(ports, path)
    result = read_with(ports, path, session_id="s-2")
    at = store.index.links[-1].at
    assert [("s-1", ("wrote", "reinforced"), "2026-01-01T00:00:00Z", "2026-01-03T00:00:00Z")] == [
        (t.session_id, t.kinds, t.first_at, t.last_at) for t in first.sessions
    ]
    assert ["s-1", "s-2"] == [t.session_id for t in result.sessions]
    assert (("read",), at, at) == (
        result.sessions[1].kinds,
        result.sessions[1].first_at,
        result.sessions[1].last_at,
    )


def test_a_failing_link_lookup_leaves_the_read_without_sessions() -> None:
    """The memory is still returned when the session lookup fails."""
    store, path = _written()
    ports, _ = _ports(store)

    class Broken:
        def session_links(self, **_: object) -> tuple[SessionLink, ...]:
            raise StorageFailure("read session links")

        def record_session_links(self, links: object) -> None:
            raise StorageFailure("record session links")

        def active_path_for_hash(self, content_hash: str) -> str | None:
            return None

    result = read_with(attrs.evolve(ports, recorder=Broken()), path, session_id="s")
    assert (path, ()) == (result.path, result.sessions)


@pytest.mark.parametrize("raw", ["areas/inbox/missing.html", "README.html", "areas/inbox"])
def test_read_of_a_path_holding_no_memory_is_not_found(raw: str) -> None:
    """A missing file, a file outside the buckets or a folder raise NotFound."""
    store, _ = _written()
    ports, retrieval = _ports(store)
    with pytest.raises(NotFound):
        read_with(ports, raw)
    assert [] == retrieval.reinforced


@pytest.mark.parametrize("raw", ["../etc/passwd.html", "areas/../x.html", ""])
def test_read_refuses_a_path_leaving_the_repository(raw: str) -> None:
    """A path that could escape the root is refused as bad input before anything is read."""
    store, _ = _written()
    ports, _ = _ports(store)
    with pytest.raises(InvalidInput):
        read_with(ports, raw)


def test_a_stale_index_still_answers_and_skips_the_bump() -> None:
    """With the index refusing to update, the read answers (fresh False) from the working tree."""
    store, path = _written()
    store.index.stale = True
    store.index.rows.clear()
    ports, retrieval = _ports(store)
    result = read_with(ports, path)
    assert (path, False) == (result.path, result.index_fresh)
    assert [] == retrieval.reinforced


def test_present_metas_of_a_written_file_start_with_the_required_four() -> None:
    """The four required metas come first, camel-cased, in the format's order."""
    store, path = _written()
    ports, _ = _ports(store)
    names = [name for name, _ in read_with(ports, path).metas]
    assert ["memoryType", "status", "createdAt", "updatedAt"] == names[:4]


optional_text = st.one_of(st.none(), st.text(min_size=1, max_size=5))


@given(
    session=optional_text,
    superseded=optional_text,
    due=optional_text,
    reprieves=st.integers(min_value=0, max_value=3),
    needs_revision=st.booleans(),
)
@example(session=None, superseded=None, due=None, reprieves=0, needs_revision=False)
def test_present_metas_name_exactly_the_stated_optional_values(
    session: str | None,
    superseded: str | None,
    due: str | None,
    reprieves: int,
    needs_revision: bool,
) -> None:
    """An optional meta appears iff it holds a value; keys never repeat."""
    doc = MemoryDoc(
        title="t",
        memory_type="semantic",
        status="active",
        created_at="2026-01-01",
        updated_at="2026-01-01",
        content_hash="sha256:0",
        session_id=session,
        superseded_by=superseded,
        due_at=due,
        reprieves=reprieves,
        needs_revision=needs_revision,
    )
    metas = dict(present_metas(doc))
    assert len(metas) == len(present_metas(doc))
    expected = {
        "sessionId": session is not None,
        "supersededBy": superseded is not None,
        "dueAt": due is not None,
        "reprieves": reprieves != 0,
        "needsRevision": needs_revision,
    }
    assert expected == {name: name in metas for name in expected}


inner_markup = st.text(alphabet='<>/ap mrkticle\n"=', max_size=40).filter(
    lambda s: "</article" not in s.lower()
)


@given(inner=inner_markup, attributes=st.sampled_from(["", ' class="x"', " lang=en"]))
@example(inner="<article>", attributes="")
def test_article_inner_html_returns_what_the_article_wraps(inner: str, attributes: str) -> None:
    """Whatever the article wraps comes back verbatim, head and trailing markup excluded."""
    text = (
        f"<html><head><title>t</title></head><body><article{attributes}>{inner}</article>\n</body>"
    )
    assert inner == article_inner_html(text)


def test_article_inner_html_of_a_file_without_an_article_is_empty() -> None:
    """No article element, no markup."""
    assert "" == article_inner_html("<html><body><p>x</p></body></html>")


def test_a_known_at_read_is_history_it_bumps_and_links_nothing() -> None:
    """With ``known_at`` the file comes from the commit that answered (named in the result),
    and the read neither bumps salience nor files a session link."""
    store, path = _written()
    ports, retrieval = _ports(store)
    result = read_with(ports, path, session_id="s-9", known_at="2026-01-01T00:00:00Z")
    assert (NOTE.title, store.git.head(), (), (), []) == (
        result.title,
        result.known_at_commit,
        result.sessions,
        result.inbound_links,
        retrieval.reinforced,
    )
    assert [] == store.index.links


def test_a_known_at_read_before_the_first_commit_is_not_found() -> None:
    """The fake stamps its commits at the epoch: a second earlier, nothing was known."""
    store, path = _written()
    ports, _ = _ports(store)
    with pytest.raises(NotFound):
        read_with(ports, path, known_at="1969-12-31T23:59:59Z")
