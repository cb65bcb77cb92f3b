"""The gate's wording: one claim template per memory type, titles, body sentences and kits.

Claims are affirmative and marker-free. Semantic claims carry one small integer and
procedural claims none, so about half the probes also get a numeric control. Bodies and kits
are digit-free text (numbers live in attributes only), so a numeric flip in the claim is the
only number a query can match.
"""

from __future__ import annotations

from html import escape
from typing import Final

import attrs

from memhtml.app.eval.discrimination.topics import Topic

SEMANTIC: Final = "semantic"
PROCEDURAL: Final = "procedural"
ARC: Final = "arc"
BASE_TYPES: Final[tuple[str, ...]] = (
    "episodic",
    SEMANTIC,
    PROCEDURAL,
    "agent_insight",
    "user_preference",
    "error_pattern",
    "verdict",
    "precedent",
    ARC,
)
"""Base memory ``i`` has type ``BASE_TYPES[i % 9]``: every type but task."""

CLAIM_TEMPLATES: Final[dict[str, str]] = {
    "episodic": "During the {env} drill the {topic} {anchor} team chose to {verb} every {noun} "
    "by hand.",
    SEMANTIC: "In the {env} environment the {topic} {anchor} is allowed {n} {noun} operations "
    "per minute.",
    PROCEDURAL: "Before each {env} release operators must {verb} the {topic} {anchor} {noun} "
    "and record the outcome.",
    "agent_insight": "The assistant learned to {verb} the {topic} {noun} early whenever {env} "
    "traffic climbs near the {anchor}.",
    "user_preference": "The user prefers to {verb} {topic} {noun} reports from the {env} "
    "{anchor} once a week.",
    "error_pattern": "Jobs in {env} keep stalling when the {topic} {anchor} tries to {verb} a "
    "stale {noun}.",
    "verdict": "The review concluded that the {topic} {anchor} should {verb} every {noun} in "
    "{env} first.",
    "precedent": "Last spring the {env} team handled a {topic} {noun} surge by letting the "
    "{anchor} {verb} in batches.",
    ARC: "Across recent months the {topic} {anchor} work in {env} kept returning to how teams "
    "{verb} the {noun}.",
}
"""One affirmative template per type; only the semantic one carries ``{n}``."""

EARLIER_PROCEDURAL_TEMPLATE: Final = (
    "Ahead of every {env} release the operators {verb} the {topic} {anchor} {noun} and log "
    "the result."
)
"""The reworded claim of an archived earlier copy of a procedural memory."""

TITLE_LABELS: Final[dict[str, str]] = {
    "episodic": "drill",
    SEMANTIC: "quota",
    PROCEDURAL: "routine",
    "agent_insight": "lesson",
    "user_preference": "preference",
    "error_pattern": "stall",
    "verdict": "ruling",
    "precedent": "case",
    ARC: "story",
}

BODY_TEMPLATES: Final[tuple[str, ...]] = (
    "The {anchor} keeps one {noun2} beside every {noun3}.",
    "Owners in {area} track each {noun2} alongside the {noun3} list.",
    "The {tag} crew pairs every {noun2} with a matching {noun3}.",
)
CODE_SENTENCE: Final = "Filed under reference {code}."
CODE_PREFIX: Final = "zq"
CODE_DIGITS: Final = 3
ALPHABET: Final = "abcdefghijklmnopqrstuvwxyz"
EARLIER_TITLE_SUFFIX: Final = " (earlier)"

_WEIGHT_WORDS: Final = ("one", "two", "three", "four", "five")
KIT_COUNT: Final = 9
"""Base memory ``i`` carries kit ``i % 9``."""


@attrs.frozen(kw_only=True)
class Wording:
    """The words one base memory is built from."""

    topic: Topic
    memory_type: str
    noun: str
    verb: str
    env: str
    number: int | None

    def fields(self) -> dict[str, str]:
        """Template fields shared by claims and titles."""
        return {
            "topic": self.topic.name,
            "anchor": self.topic.anchor,
            "noun": self.noun,
            "verb": self.verb,
            "env": self.env,
            "n": "" if self.number is None else str(self.number),
        }


def claim_of(wording: Wording) -> str:
    """The memory's claim sentence."""
    return CLAIM_TEMPLATES[wording.memory_type].format(**wording.fields())


def earlier_claim_of(wording: Wording) -> str:
    """The reworded claim of an archived earlier copy."""
    return EARLIER_PROCEDURAL_TEMPLATE.format(**wording.fields())


def title_of(wording: Wording) -> str:
    """``<Topic> <anchor> <noun> <label> in <env>``: unique per (topic, type, noun, env)."""
    label = TITLE_LABELS[wording.memory_type]
    t = wording.topic
    return f"{t.name} {t.anchor} {wording.noun} {label} in {wording.env}"


def letter_code(ordinal: int) -> str:
    """``zq`` plus ``ordinal`` in base 26 over a–z, at least three letters: ``zqaaa``, ``zqaab``…

    Letters only, so every article hash differs without a digit a numeric query could match;
    the prefix keeps a code from ever spelling a stopword or a marker.

    Raises:
        ValueError: ``ordinal`` is negative.
    """
    if ordinal < 0:
        raise ValueError("ordinal must be >= 0")
    letters: list[str] = []
    value = ordinal
    while value or len(letters) < CODE_DIGITS:
        value, digit = divmod(value, len(ALPHABET))
        letters.append(ALPHABET[digit])
    return CODE_PREFIX + "".join(reversed(letters))


def body_sentences(topic: Topic, noun_index: int, ordinal: int) -> tuple[str, str]:
    """The two sentences after the claim: one about the topic, then the letter code."""
    template = BODY_TEMPLATES[ordinal % len(BODY_TEMPLATES)]
    sentence = template.format(
        anchor=topic.anchor,
        area=topic.area,
        tag=topic.tags[0],
        noun2=topic.nouns[(noun_index + 1) % len(topic.nouns)],
        noun3=topic.nouns[(noun_index + 2) % len(topic.nouns)],
    )
    return sentence, CODE_SENTENCE.format(code=letter_code(ordinal))


def kit_html(kit: int, topic: Topic, noun_index: int, verb: str, stamp: str) -> str:
    """Markup block ``kit`` (0–8) placed after the claim paragraph.

    The blocks exercise the format's vocabulary: time; dl/dd/data; cite/q; dfn;
    figure/pre/code/figcaption; details/summary; aside; table/abbr; section/ul/strong/em/a.
    None holds a ``<mark>`` or a digit in its text. ``stamp`` dates the ``<time>`` block, so a
    control dated a day later carries the later event time too.
    """
    t = {k: escape(v) for k, v in _kit_fields(topic, noun_index, verb, stamp).items()}
    blocks = (
        f'<p>Noted on <time datetime="{t["stamp"]}">the review day</time> by the {t["area"]} '
        "team.</p>",
        f"<dl><dt>Owner</dt><dd>{t['area']} team</dd><dt>Weight</dt>"
        f'<dd><data value="{t["weight_value"]}">{t["weight_word"]}</data></dd></dl>',
        f"<p>The <cite>{t['topic']} handbook</cite> says it plainly: "
        f'<q cite="https://example.invalid/{t["workspace"]}">{t["verb"]} the {t["noun2"]} '
        "with care</q>.</p>",
        f"<p>A <dfn>{t['anchor']} {t['noun2']}</dfn> is the unit the {t['area']} team counts.</p>",
        f'<figure><pre><code data-lang="shell">{t["workspace"]} {t["verb"]} --{t["noun2"]}'
        f"</code></pre><figcaption>How the {t['area']} team runs it by hand.</figcaption>"
        "</figure>",
        f"<details><summary>Why the {t['anchor']} works this way</summary><p>The "
        f"{t['area']} team chose it after a long review.</p></details>",
        f"<aside><p>The {t['area']} team revisits this every season.</p></aside>",
        f"<table><tr><th>Area</th><td>{t['area']}</td></tr><tr><th>Unit</th><td>"
        f'<abbr title="{t["topic"]} {t["anchor"]}">{t["abbr"]}</abbr></td></tr></table>',
        f"<section><ul><li><strong>{t['verb']}</strong> the {t['noun2']} first</li>"
        f"<li><em>{t['area']}</em> keeps the "
        f'<a href="https://example.invalid/{t["workspace"]}/{t["anchor"]}">runbook</a></li>'
        "</ul></section>",
    )
    return blocks[kit % KIT_COUNT]


def _kit_fields(topic: Topic, noun_index: int, verb: str, stamp: str) -> dict[str, str]:
    weight = noun_index % len(_WEIGHT_WORDS)
    return {
        "stamp": stamp,
        "topic": topic.name,
        "workspace": topic.workspace,
        "area": topic.area,
        "anchor": topic.anchor,
        "verb": verb,
        "noun2": topic.nouns[(noun_index + 1) % len(topic.nouns)],
        "abbr": topic.abbreviation,
        "weight_value": str(weight + 1),
        "weight_word": _WEIGHT_WORDS[weight],
    }


def article_html(claim: str, body: tuple[str, str], kit: str) -> str:
    """The article's inner HTML: the claim paragraph (claim marked, body after it), the kit."""
    prose = " ".join(escape(sentence, quote=False) for sentence in body)
    return f"<p><mark>{escape(claim, quote=False)}</mark> {prose}</p>\n{kit}"
