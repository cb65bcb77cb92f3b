"""Dedup never folds distinct events (issue 14): an episode's time of day is part of its text.

Loading ten real conversations lost turns whose words repeated at another time of the same
day: the visible event label showed the day only, and the content hash reads visible text.
Here ten turns with identical words, a second apart, go through the real renderer, git and
index, by `apply` and by `write`; every dedup that does happen names the memory it was
folded into.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any, Final

from tests.integration.test_cli_commands_store import data, envelope, invoke

START: Final = dt.datetime(2023, 5, 8, 13, 56, 0, tzinfo=dt.UTC)
WORDS: Final = "Sounds great, see you then!"


def _turn(number: int, *, seconds: int) -> dict[str, object]:
    at = (START + dt.timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%SZ")
    return {
        "op": "write",
        "title": f"Turn {number}",
        "type": "episodic",
        "claim": WORDS,
        "event_at": at,
        "path": f"areas/chat/t{number:02d}.html",
        "strict_path": True,
    }


def _apply(root: Path, ops: list[dict[str, object]]) -> Any:
    lines = "\n".join(json.dumps(op) for op in ops)
    return data(invoke(["--repo", str(root), "apply"], stdin=lines))


def _store(tmp_path: Path) -> Path:
    root = tmp_path / "store"
    data(invoke(["init", "--repo", str(root)]))
    return root


def test_ten_turns_with_the_same_words_at_different_times_are_ten_memories(
    tmp_path: Path,
) -> None:
    """Ten identical claims one second apart on one day: ten files, ten hashes, ten indexed,
    and a search lists them all."""
    root = _store(tmp_path)
    applied = _apply(root, [_turn(n, seconds=n) for n in range(10)])
    listed = data(invoke(["--repo", str(root), "list", "--type", "episodic"]))["files"]
    hits = data(invoke(["--repo", str(root), "search", "see you then", "--limit", "20"]))["hits"]
    assert (10, 0) == (applied["summary"]["written"], applied["summary"]["deduped"])
    assert [f"areas/chat/t{n:02d}.html" for n in range(10)] == [f["path"] for f in listed]
    assert 10 == len({(root / f["path"]).read_text() for f in listed})
    assert 10 == len(hits)


def test_a_repeated_event_dedups_onto_the_memory_it_repeats(tmp_path: Path) -> None:
    """The same words at the same second do dedup, in the batch and against the store, and
    each deduped op names the memory that holds its content (apply and write alike)."""
    root = _store(tmp_path)
    first = _apply(root, [_turn(0, seconds=0), _turn(1, seconds=5), _turn(2, seconds=0)])
    again = _apply(root, [_turn(3, seconds=5)])
    write = [*("write", "--title", "Turn 4", "--type", "episodic", "--claim", WORDS)]
    written = data(invoke(["--repo", str(root), *write, "--event-at", "2023-05-08T13:56:00Z"]))
    assert [
        (True, False, None),
        (True, False, None),
        (True, True, "areas/chat/t00.html"),
    ] == [(r["ok"], r["deduped"], r["existingPath"]) for r in first["results"]]
    assert [(True, "areas/chat/t01.html", "areas/chat/t01.html")] == [
        (r["deduped"], r["existingPath"], r["path"]) for r in again["results"]
    ]
    assert (True, "areas/chat/t00.html", None) == (
        written["deduped"],
        written["existingPath"],
        written["commitSha"],
    )


def test_a_midnight_event_keeps_the_day_label_and_its_hash(tmp_path: Path) -> None:
    """A date and a stamp at midnight UTC render the day alone, as every event did before, so
    they are one content: the second dedups onto the first."""
    root = _store(tmp_path)
    day = {**_turn(0, seconds=0), "event_at": "2023-05-08"}
    midnight = {**_turn(1, seconds=0), "event_at": "2023-05-08T00:00:00Z"}
    result = invoke(
        ["--repo", str(root), "apply"], stdin=f"{json.dumps(day)}\n{json.dumps(midnight)}"
    )
    applied = envelope(result)["data"]
    text = (root / "areas/chat/t00.html").read_text()
    assert '<time datetime="2023-05-08">2023-05-08</time>' in text
    assert [(False, None), (True, "areas/chat/t00.html")] == [
        (r["deduped"], r["existingPath"]) for r in applied["results"]
    ]
