"""Each tool as one facade call: checked arguments → request → ``Store`` method → CLI data.

Requests are built with the command line's own checks (``search_scope``, ``checked_entity``,
``check_article``, ``write_requests.checked``) and results shaped by its own functions
(``shaping``, ``report_data``, ``doctor_data``), so a tool's ``data`` is the CLI's ``data``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Final, cast

from memhtml.app.cli.commands import shaping
from memhtml.app.cli.commands.index import STATUS_KEYS, report_data
from memhtml.app.cli.commands.maintenance import doctor_data
from memhtml.app.cli.commands.retrieval import search_scope
from memhtml.app.cli.commands.scope_flags import checked_entity, checked_facets
from memhtml.app.cli.commands.write_checks import check_article, checked_write_path

if TYPE_CHECKING:
    from memhtml.app.store import Store
    from memhtml.app.use_cases.near_duplicates import NearPolicy
    from memhtml.domain.scope import SearchScope

Args = Mapping[str, object]
Call = Callable[["Store", Args], shaping.Data]


def _text(args: Args, name: str) -> str | None:
    return cast("str | None", args.get(name))


def _near(args: Args) -> NearPolicy:
    """The tool's near-duplicate policy (each absent argument is the default)."""
    from memhtml.app.store import near_policy

    return near_policy(
        _text(args, "on_near_duplicate") or "report",
        cast("float | None", args.get("near_duplicate_floor")),
        cast("int | None", args.get("near_duplicate_limit")),
    )


def _on_conflict(args: Args) -> str:
    """The tool's ``on_conflict`` (its schema default when absent)."""
    return _text(args, "on_conflict") or "report"


def _texts(args: Args, name: str) -> tuple[str, ...]:
    return cast("tuple[str, ...]", args.get(name, ()))


def _flag(args: Args, name: str) -> bool:
    return bool(args.get(name, False))


def _scope(args: Args) -> SearchScope:
    return search_scope(
        _texts(args, "type"),
        _text(args, "workspace"),
        _texts(args, "tag"),
        _text(args, "entity"),
        _texts(args, "facet"),
        _flag(args, "include_archived"),
        _text(args, "as_of"),
    )


def _known_at(args: Args) -> str | None:
    """The ``known_at`` argument normalised to a UTC stamp (``--known-at``'s rule)."""
    from memhtml.domain.user_instants import normalize_user_instant

    known_at = _text(args, "known_at")
    return None if known_at is None else normalize_user_instant(known_at, "known_at")


def search(store: Store, args: Args) -> shaping.Data:
    """``memory.hits`` for a query."""
    from memhtml.ports.retrieval import SearchRequest

    limit = cast("int", args["limit"])
    request = SearchRequest(query=str(args["query"]), scope=_scope(args), limit=limit)
    return shaping.hits_data(store.search(request, known_at=_known_at(args)))


def recall(store: Store, args: Args) -> shaping.Data:
    """``recall.pack`` for a task."""
    from memhtml.ports.retrieval import RecallRequest

    budget = cast("int", args["budget"])
    request = RecallRequest(query=str(args["query"]), scope=_scope(args), budget_chars=budget)
    return shaping.recall_data(store.recall(request, known_at=_known_at(args)))


def read(store: Store, args: Args) -> shaping.Data:
    """``memory.detail`` of one path (bumps its salience, unless read as of ``known_at``)."""
    from memhtml.domain.user_instants import normalize_user_instant

    known_at = _text(args, "known_at")
    result = store.read(
        str(args["path"]),
        session_id=_text(args, "session_id"),
        known_at=None if known_at is None else normalize_user_instant(known_at, "known_at"),
    )
    return shaping.detail_data(result)


def neighbors(store: Store, args: Args) -> shaping.Data:
    """``memory.neighbors``: the links around one path."""
    relations = _texts(args, "relation")
    result = store.neighbors(
        str(args["path"]), depth=cast("int", args["depth"]), relations=relations or None
    )
    return shaping.neighbors_data(result)


def list_memories(store: Store, args: Args) -> shaping.Data:
    """One ``memory.list`` page."""
    from memhtml.app.use_cases.listing import ListRequest

    request = ListRequest(
        memory_types=_texts(args, "type"),
        workspace=_text(args, "workspace"),
        tags=_texts(args, "tag"),
        entity=checked_entity(_text(args, "entity")),
        facets=checked_facets(_texts(args, "facet")),
        para=_text(args, "para"),
        include_archived=_flag(args, "include_archived"),
        limit=cast("int", args["limit"]),
        cursor=_text(args, "cursor"),
        known_at=_known_at(args),
    )
    return shaping.list_data(store.list(request))


def index_status(store: Store, args: Args) -> shaping.Data:
    """``index.report`` in status mode."""
    return report_data("status", store.index_status(), STATUS_KEYS)


def doctor(store: Store, args: Args) -> shaping.Data:
    """``doctor.report``, after repairs when ``fix``."""
    fix = _flag(args, "fix")
    return doctor_data(store.doctor(fix=fix), fix=fix)


def write(store: Store, args: Args) -> shaping.Data:
    """``memory.written``: one new memory, or the active one holding the same content."""
    from memhtml.domain.write_requests import WriteRequest, checked

    check_article(_text(args, "claim"), _text(args, "article_html"))
    request = checked(
        WriteRequest(
            title=str(args["title"]),
            memory_type=str(args["type"]),
            claim=_text(args, "claim"),
            body=_texts(args, "body"),
            article_html=_text(args, "article_html"),
            path=checked_write_path(_text(args, "path"), "path"),
            strict_path=_flag(args, "strict_path"),
            workspace=_text(args, "workspace"),
            tags=_texts(args, "tag"),
            entities=_texts(args, "entity"),
            importance=cast("int | None", args.get("importance")),
            confidence=cast("float | None", args.get("confidence")),
            event_at=_text(args, "event_at"),
            valid_from=_text(args, "valid_from"),
            session_id=_text(args, "session_id"),
            prompt_id=_text(args, "prompt_id"),
            turn_uuid=_text(args, "turn_uuid"),
        )
    )
    near = _near(args)
    result = store.write(
        request,
        on_conflict=_on_conflict(args),
        on_near_duplicate=near.mode,
        near_floor=near.floor,
        near_limit=near.limit,
    )
    return shaping.shaped(result, shaping.WRITTEN_KEYS)


def apply(store: Store, args: Args) -> shaping.Data:
    """``batch.applied``: the ops as JSONL lines, parsed by the CLI's own batch parser; an
    aborted atomic batch is the CLI's ``ERR_BATCH_ABORTED`` tool error, results in ``detail``."""
    from memhtml.app.apply_ops import SessionDefaults
    from memhtml.app.use_cases.apply import refuse_aborted

    ops = cast("tuple[dict[str, object], ...]", args["ops"])
    defaults = SessionDefaults(
        session_id=_text(args, "session_id"),
        prompt_id=_text(args, "prompt_id"),
        turn_uuid=_text(args, "turn_uuid"),
    )
    lines = [json.dumps(op, ensure_ascii=False) for op in ops]
    near = _near(args)
    result = store.apply(
        lines,
        continue_on_error=_flag(args, "continue_on_error"),
        defaults=defaults,
        on_conflict=_on_conflict(args),
        on_near_duplicate=near.mode,
        near_floor=near.floor,
        near_limit=near.limit,
    )
    data = shaping.apply_data(result)
    refuse_aborted(result, data)
    return data


def correct(store: Store, args: Args) -> shaping.Data:
    """``memory.corrected``: the old memory archived, its replacement written and linked."""
    from memhtml.app.use_cases.correct import CorrectRequest

    check_article(_text(args, "claim"), _text(args, "article_html"))
    request = CorrectRequest(
        title=str(args["title"]),
        claim=_text(args, "claim"),
        body=_texts(args, "body"),
        article_html=_text(args, "article_html"),
        memory_type=_text(args, "type"),
        # Not given means "keep the target's", as an absent repeatable flag does in the CLI.
        tags=_texts(args, "tag") or None,
        entities=_texts(args, "entity") or None,
        workspace=_text(args, "workspace"),
        reason=_text(args, "reason"),
        event_at=_text(args, "event_at"),
        valid_from=_text(args, "valid_from"),
        session_id=_text(args, "session_id"),
    )
    near = _near(args)
    result = store.correct(
        str(args["target"]),
        request,
        on_conflict=_on_conflict(args),
        on_near_duplicate=near.mode,
        near_floor=near.floor,
        near_limit=near.limit,
    )
    return shaping.shaped(result, shaping.CORRECTED_KEYS)


def archive(store: Store, args: Args) -> shaping.Data:
    """``memory.archived``."""
    result = store.archive(str(args["path"]), str(args["reason"]))
    return shaping.shaped(result, shaping.ARCHIVED_KEYS)


def link(store: Store, args: Args) -> shaping.Data:
    """``memory.linked``."""
    result = store.link(str(args["src"]), str(args["rel"]), str(args["dst"]))
    return shaping.shaped(result, shaping.LINKED_KEYS)


def reinforce(store: Store, args: Args) -> shaping.Data:
    """``memory.reinforced``."""
    answer = store.reinforce(
        _texts(args, "paths"), str(args["signal"]), session_id=_text(args, "session_id")
    )
    return shaping.shaped(answer, shaping.REINFORCED_KEYS)


CALLS: Final[Mapping[str, Call]] = {
    "search": search,
    "recall": recall,
    "read": read,
    "neighbors": neighbors,
    "list": list_memories,
    "index_status": index_status,
    "doctor": doctor,
    "write": write,
    "apply": apply,
    "correct": correct,
    "archive": archive,
    "link": link,
    "reinforce": reinforce,
}
