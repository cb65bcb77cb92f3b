"""Reading ``locomo10.json`` into frozen values (docs/evaluation.md §B.1).

The file is CC BY-NC: it is read from wherever the caller keeps it and never copied. Reading
checks the shape the harness relies on (sessions with dated turns, ``D<s>:<t>`` ids in turn
order, QA items with a category) so a different or damaged file fails here, naming what is
wrong, instead of producing quietly meaningless metrics later.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Final

import attrs

from memhtml.domain.errors import InvalidInput, NotFound

EXPECTED_SHA256: Final = "79fa87e90f04081343b8c8debecb80a9a6842b76a7aa537dc9fdf651ea698ff4"
DATE_FORMAT: Final = "%I:%M %p on %d %B, %Y"
CATEGORY_NAMES: Final[Mapping[int, str]] = {
    1: "multi-hop",
    2: "temporal",
    3: "open-domain",
    4: "single-hop",
    5: "adversarial",
}
WHERE_TO_GET: Final = (
    "get locomo10.json from github.com/snap-research/LoCoMo (data/locomo10.json; "
    "CC BY-NC 4.0, evaluation use only, never copied into this project) and pass --data PATH"
)
_SESSION_KEY: Final = re.compile(r"session_(\d+)")
_READ_CHUNK: Final = 1 << 20


class LocomoDataInvalid(InvalidInput):
    """The data file is not LoCoMo-shaped; the message names the first thing that is wrong."""


@attrs.frozen(kw_only=True)
class Turn:
    """One dialog turn.

    Attributes:
        dia_id: ``D<session>:<turn>``, as the QA evidence names it.
        session: The session number (1-based, as in ``session_<n>``).
        position: The turn's 1-based position inside its session.
        speaker: Who spoke.
        text: What was said.
        blip_caption: The caption of a shared photo, or None.
    """

    dia_id: str
    session: int
    position: int
    speaker: str
    text: str
    blip_caption: str | None = None


@attrs.frozen(kw_only=True)
class Session:
    """One dated session that holds turns (date keys without turns are not sessions here)."""

    number: int
    started_at: dt.datetime
    turns: tuple[Turn, ...]


@attrs.frozen(kw_only=True)
class QaItem:
    """One question with its raw evidence strings (normalised later, see ``evidence.py``)."""

    index: int
    question: str
    category: int
    evidence: tuple[str, ...]


@attrs.frozen(kw_only=True)
class Conversation:
    """One conversation: two speakers, their sessions in number order, their questions."""

    sample_id: str
    speaker_a: str
    speaker_b: str
    sessions: tuple[Session, ...]
    qa: tuple[QaItem, ...]

    @property
    def turns(self) -> tuple[Turn, ...]:
        """Every turn, session by session, in order."""
        return tuple(turn for session in self.sessions for turn in session.turns)

    @property
    def last_session_at(self) -> dt.datetime:
        """When the latest session started; the harness's clock is pinned one day after."""
        return max(session.started_at for session in self.sessions)


@attrs.frozen(kw_only=True)
class Dataset:
    """The whole file: where it was read from, its sha256 and its conversations in file order."""

    path: str
    sha256: str
    conversations: tuple[Conversation, ...]


def parse_session_date(text: str) -> dt.datetime:
    """``1:56 pm on 8 May, 2023`` as an aware UTC instant (the data names no zone).

    Raises:
        LocomoDataInvalid: The text does not follow the dataset's one date format.
    """
    try:
        parsed = dt.datetime.strptime(text.strip(), DATE_FORMAT)
    except ValueError as e:
        raise LocomoDataInvalid(f"session date {text!r} does not match {DATE_FORMAT!r}") from e
    return parsed.replace(tzinfo=dt.UTC)


def load_dataset(path: Path) -> Dataset:
    """Read and check the file at ``path``.

    Raises:
        NotFound: No file at ``path``; the message says where to get it.
        LocomoDataInvalid: Not JSON, or not shaped like LoCoMo.
    """
    if not path.is_file():
        raise NotFound(f"no LoCoMo data file at {path}; {WHERE_TO_GET}")
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(_READ_CHUNK):
            digest.update(block)
    try:
        raw = json.loads(path.read_bytes())
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise LocomoDataInvalid(f"{path} is not JSON") from e
    return Dataset(path=str(path), sha256=digest.hexdigest(), conversations=parse_dataset(raw))


def parse_dataset(raw: object) -> tuple[Conversation, ...]:
    """The conversations of an already decoded file.

    Raises:
        LocomoDataInvalid: The document is not a list of LoCoMo conversations.
    """
    if not isinstance(raw, list) or not raw:
        raise LocomoDataInvalid("expected a non-empty JSON array of conversations")
    return tuple(_conversation(number, item) for number, item in enumerate(raw))


def _conversation(number: int, raw: object) -> Conversation:
    item = _mapping(raw, f"conversation #{number}")
    sample_id = _text(item.get("sample_id"), f"conversation #{number} sample_id")
    dialogue = _mapping(item.get("conversation"), f"{sample_id} conversation")
    sessions = tuple(
        _session(sample_id, session_number, dialogue)
        for session_number in sorted(_session_numbers(dialogue))
        if dialogue[f"session_{session_number}"]
    )
    if not sessions:
        raise LocomoDataInvalid(f"{sample_id} has no session with turns")
    qa = _sequence(item.get("qa"), f"{sample_id} qa")
    return Conversation(
        sample_id=sample_id,
        speaker_a=_text(dialogue.get("speaker_a"), f"{sample_id} speaker_a"),
        speaker_b=_text(dialogue.get("speaker_b"), f"{sample_id} speaker_b"),
        sessions=sessions,
        qa=tuple(_qa_item(sample_id, index, entry) for index, entry in enumerate(qa)),
    )


def _session_numbers(dialogue: Mapping[str, object]) -> list[int]:
    return [int(match.group(1)) for key in dialogue if (match := _SESSION_KEY.fullmatch(key))]


def _session(sample_id: str, number: int, dialogue: Mapping[str, object]) -> Session:
    where = f"{sample_id} session_{number}"
    started_at = parse_session_date(
        _text(dialogue.get(f"session_{number}_date_time"), f"{where}_date_time")
    )
    turns = []
    for position, entry in enumerate(_sequence(dialogue[f"session_{number}"], where), start=1):
        fields = _mapping(entry, f"{where} turn {position}")
        dia_id = _text(fields.get("dia_id"), f"{where} turn {position} dia_id")
        # Evidence names turns by id; the harness names files by position. They must agree.
        if dia_id != f"D{number}:{position}":
            raise LocomoDataInvalid(f"{where} turn {position} has id {dia_id!r}")
        caption = fields.get("blip_caption")
        turns.append(
            Turn(
                dia_id=dia_id,
                session=number,
                position=position,
                speaker=_text(fields.get("speaker"), f"{dia_id} speaker"),
                text=_text(fields.get("text"), f"{dia_id} text"),
                blip_caption=caption if isinstance(caption, str) and caption.strip() else None,
            )
        )
    return Session(number=number, started_at=started_at, turns=tuple(turns))


def _qa_item(sample_id: str, index: int, raw: object) -> QaItem:
    where = f"{sample_id} qa #{index}"
    fields = _mapping(raw, where)
    category = fields.get("category")
    if (
        isinstance(category, bool)
        or not isinstance(category, int)
        or category not in CATEGORY_NAMES
    ):
        raise LocomoDataInvalid(f"{where} has category {category!r}")
    evidence = _sequence(fields.get("evidence", []), f"{where} evidence")
    if not all(isinstance(entry, str) for entry in evidence):
        raise LocomoDataInvalid(f"{where} evidence holds a non-string")
    return QaItem(
        index=index,
        question=_text(fields.get("question"), f"{where} question"),
        category=category,
        evidence=tuple(str(entry) for entry in evidence),
    )


def _mapping(value: object, where: str) -> Mapping[str, object]:
    if not isinstance(value, dict):
        raise LocomoDataInvalid(f"{where} is not a JSON object")
    return value


def _sequence(value: object, where: str) -> Sequence[object]:
    if not isinstance(value, list):
        raise LocomoDataInvalid(f"{where} is not a JSON array")
    return value


def _text(value: object, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise LocomoDataInvalid(f"{where} is missing or not a non-empty string")
    return value
