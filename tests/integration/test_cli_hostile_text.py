"""Hostile text end to end (issue 14): the CLI refuses it with a stable code and writes nothing,
files carrying it that arrive through git are skipped by the indexer, and what is printed or
committed never carries a raw control character."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from dulwich.objects import Commit
from dulwich.repo import Repo

import memhtml
from memhtml.adapters.html import render_memory
from memhtml.domain.control_chars import DISPLAY_CONTROL
from memhtml.domain.model import RenderInputs
from memhtml.ports.git_writer import ChangeSet, FileWrite
from tests.integration.test_cli_commands_bad_input import PLAIN_WRITE, refused, store
from tests.integration.test_cli_commands_store import Store, data, envelope, snapshot

__all__ = ["store"]  # the fixture, used by name

CLAIM = "<p><mark>A fact.</mark></p>"
HOSTILE_ARTICLES = {
    "javascript link": '<p><a href="javascript:alert(1)">x</a></p>',
    "entity-obfuscated link": '<p><a href="jav&#x61;script:alert(1)">x</a></p>',
    "tab-split link": '<p><a href="java\tscript:alert(1)">x</a></p>',
    "uppercase link": '<p><a href="JAVASCRIPT:alert(1)">x</a></p>',
    "iframe": '<iframe src="https://e.x/"></iframe>',
    "object": '<object data="x.swf"></object>',
    "embed": '<embed src="x.swf">',
    "form": '<form action="https://e.x/"><input name="q"></form>',
    "meta refresh": '<meta http-equiv="refresh" content="0;url=https://e.x/">',
    "base": '<base href="https://e.x/">',
    "script": "<script>alert(1)</script>",
    "event handler": '<p onclick="alert(1)">x</p>',
    "style attribute": '<p style="color:red">x</p>',
    "svg": "<svg><script>alert(1)</script></svg>",
    "escape in the claim": "<p><mark>A fact.\x1b[2J</mark></p>",
}


@pytest.mark.parametrize("case", sorted(HOSTILE_ARTICLES))
def test_hostile_article_html_is_invalid_memory_and_writes_nothing(store: Store, case: str) -> None:
    """Each construct in --article-html: ERR_INVALID_MEMORY, exit 1, tree byte-identical."""
    markup = HOSTILE_ARTICLES[case]
    article = markup if "<mark>" in markup else CLAIM + markup
    failure = refused(store, [*PLAIN_WRITE, "--article-html", article], "ERR_INVALID_MEMORY", 1)
    assert "\x1b" not in json.dumps(failure, ensure_ascii=False)


@pytest.mark.parametrize(
    ("flags", "field"),
    [
        (["--title", "Fact \x1b[31mred"], "title"),
        (["--claim", "A fact\x07."], "claim"),
        (["--tag", "ok", "--tag", "bad\x9b"], "tag"),
        (["--entity", "person:\x1b]0;x"], "entity"),
    ],
)
def test_control_characters_in_flags_are_invalid_flag(
    store: Store, flags: list[str], field: str
) -> None:
    """A control character in a printed field: ERR_INVALID_FLAG, exit 2, the field named."""
    args = ["write", "--type", "semantic", *flags]
    if "--title" not in flags:
        args += ["--title", "A fact"]
    if "--claim" not in flags:
        args += ["--claim", "A fact."]
    failure = refused(store, args, "ERR_INVALID_FLAG", 2)
    assert failure["error"].startswith(f"{field} holds control character U+")


def test_a_control_character_in_an_apply_line_names_the_line(store: Store) -> None:
    """apply refuses the whole batch before writing, naming the line and the field."""
    ops = [
        {"op": "write", "title": "Fine", "type": "semantic", "claim": "Fine."},
        {"op": "write", "title": "Bad", "type": "semantic", "claim": "Bad\x1b[2J."},
    ]
    stdin = "\n".join(json.dumps(op) for op in ops) + "\n"
    before = snapshot(store.root)
    result = store.run("apply", "--file", "-", stdin=stdin)
    failure = envelope(result)
    assert (2, "ERR_INVALID_FLAG") == (result.exit_code, failure["code"])
    assert failure["error"].startswith("line 2: claim holds control character U+001B")
    assert before == snapshot(store.root)


def test_files_arriving_through_git_are_skipped_with_their_violation(tmp_path: Path) -> None:
    """A hand commit of hostile files: the rebuild indexes the clean one and skips the rest."""
    root = tmp_path / "store"
    data(Store(root).run("init", "--repo", str(root)))
    clean = render_memory(
        RenderInputs(
            title="Clean",
            memory_type="semantic",
            created_at="2026-01-01T00:00:00Z",
            updated_at="2026-01-01T00:00:00Z",
            claim="A clean fact.",
        )
    )
    files = {
        "areas/inbox/clean.html": clean,
        "areas/inbox/iframe.html": clean.replace("</article>", "<iframe></iframe></article>"),
        "areas/inbox/escape.html": clean.replace("<title>Clean", "<title>Clean\x1b[2J"),
        "areas/inbox/link.html": clean.replace(
            "</article>", '<p><a href="jav&#x61;script:x">y</a></p></article>'
        ),
    }
    with memhtml.open(root, environ={}, embedder=False) as opened:
        git = opened.services.git
        writes = tuple(FileWrite(path=p, data=t.encode()) for p, t in files.items())
        opened.services.writer.commit(ChangeSet(writes=writes), "hand\n", expected_head=git.head())
        report = opened.index_rebuild(embed=False)
    assert 1 == report.files_indexed
    assert {
        "areas/inbox/iframe.html": ("element-not-allowed",),
        "areas/inbox/escape.html": ("control-character",),
        "areas/inbox/link.html": ("url-scheme",),
    } == {item.path: item.reasons for item in report.skipped}


def test_an_archive_reason_with_escapes_commits_a_clean_message(store: Store) -> None:
    """Control characters in an archive reason never reach the commit message."""
    path = data(store.run(*PLAIN_WRITE, "--claim", "A fact."))["path"]
    data(store.run("archive", path, "--reason", "gone\x1b\x07 for good"))
    repo = Repo(str(store.root))
    commit = repo[repo.head()]
    assert isinstance(commit, Commit)
    message = commit.message.decode()
    assert DISPLAY_CONTROL.search(message) is None
    assert "gone for good" in message
