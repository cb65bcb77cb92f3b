"""The gate's invented world: twelve services, four people, environment words and markers.

Every word here is ours. Each topic's vocabulary is disjoint from every other topic's, from
the stopwords and from the negation and variant marker sets, so a probe's query can only
pull in its own topic, and a control's flip is the one thing that tells it from its target.
"""

from __future__ import annotations

from typing import Final

import attrs

from memhtml.domain.polarity import NEGATION_MARKERS


@attrs.frozen(kw_only=True)
class Topic:
    """One invented service and its private vocabulary.

    Attributes:
        name: The service's display name (its workspace, capitalised).
        workspace: The ``projects/<workspace>/`` directory.
        area: The ``areas/<area>/`` directory.
        tags: Two tags, the first also its ``resources/<tag>/`` directory.
        anchor: The noun a variant control qualifies; every probe claim names it.
        nouns: Five nouns claims and bodies draw from.
        verbs: Three verbs claims draw from.
    """

    name: str
    workspace: str
    area: str
    tags: tuple[str, str]
    anchor: str
    nouns: tuple[str, str, str, str, str]
    verbs: tuple[str, str, str]

    @property
    def abbreviation(self) -> str:
        """The ``<abbr>`` text of its kit: the workspace's first three letters, upper case."""
        return self.workspace[:3].upper()

    @property
    def vocabulary(self) -> frozenset[str]:
        """Every lowercase word the topic owns (its name is its workspace)."""
        words = {self.workspace, self.area, self.anchor, self.abbreviation.lower()}
        return frozenset({*words, *self.tags, *self.nouns, *self.verbs})


def _topic(
    workspace: str,
    area: str,
    tags: tuple[str, str],
    anchor: str,
    nouns: tuple[str, str, str, str, str],
    verbs: tuple[str, str, str],
) -> Topic:
    return Topic(
        name=workspace.capitalize(),
        workspace=workspace,
        area=area,
        tags=tags,
        anchor=anchor,
        nouns=nouns,
        verbs=verbs,
    )


TOPICS: Final[tuple[Topic, ...]] = (
    _topic(
        "tallyforge",
        "billing",
        ("invoicing", "receivables"),
        "ledger",
        ("voucher", "remittance", "receipt", "surcharge", "rebate"),
        ("reconcile", "settle", "audit"),
    ),
    _topic(
        "quillmere",
        "search",
        ("indexing", "ranking"),
        "crawler",
        ("shard", "posting", "synonym", "snippet", "tokenizer"),
        ("reindex", "crawl", "boost"),
    ),
    _topic(
        "harbinlock",
        "identity",
        ("authentication", "sessions"),
        "gatekeeper",
        ("passkey", "badge", "nonce", "cookie", "realm"),
        ("rotate", "revoke", "verify"),
    ),
    _topic(
        "pelloria",
        "messaging",
        ("notifications", "email"),
        "courier",
        ("envelope", "bounce", "digest", "mailbox", "recipient"),
        ("deliver", "throttle", "retry"),
    ),
    _topic(
        "strandvale",
        "storage",
        ("backups", "replication"),
        "vault",
        ("snapshot", "bucket", "blob", "volume", "checksum"),
        ("replicate", "compact", "restore"),
    ),
    _topic(
        "cobaltine",
        "scheduling",
        ("cron", "queues"),
        "dispatcher",
        ("worker", "lease", "backlog", "heartbeat", "cronjob"),
        ("schedule", "requeue", "drain"),
    ),
    _topic(
        "mirecrest",
        "analytics",
        ("metrics", "dashboards"),
        "collector",
        ("histogram", "counter", "gauge", "sample", "rollup"),
        ("aggregate", "scrape", "downsample"),
    ),
    _topic(
        "osprell",
        "payments",
        ("checkout", "refunds"),
        "gateway",
        ("cart", "chargeback", "coupon", "wallet", "settlement"),
        ("authorize", "capture", "refund"),
    ),
    _topic(
        "brisling",
        "networking",
        ("dns", "loadbalancing"),
        "router",
        ("packet", "subnet", "tunnel", "firewall", "resolver"),
        ("route", "forward", "balance"),
    ),
    _topic(
        "gloamfield",
        "deployment",
        ("releases", "canary"),
        "pipeline",
        ("artifact", "manifest", "changelog", "container", "image"),
        ("deploy", "promote", "rollback"),
    ),
    _topic(
        "vintrell",
        "inventory",
        ("warehouse", "stock"),
        "catalog",
        ("pallet", "sku", "shelf", "supplier", "shipment"),
        ("restock", "reserve", "allocate"),
    ),
    _topic(
        "ambercove",
        "support",
        ("tickets", "helpdesk"),
        "desk",
        ("escalation", "macro", "survey", "transcript", "handoff"),
        ("escalate", "assign", "resolve"),
    ),
)
"""Topic of base memory ``i`` is ``TOPICS[i % 12]``."""

ENVIRONMENT_WORDS: Final[tuple[str, ...]] = (
    "aldebaran",
    "betelgeuse",
    "capella",
    "deneb",
    "elnath",
    "fomalhaut",
    "gienah",
    "hadar",
    "izar",
    "jabbah",
    "kochab",
    "lesath",
    "markab",
    "nunki",
    "okda",
    "pollux",
    "rigel",
    "sirius",
    "thuban",
    "unukalhai",
    "vega",
    "wezen",
    "zaniah",
)
"""Digit-free environment words; base memory ``i`` names ``ENVIRONMENT_WORDS[i % 23]``."""


@attrs.frozen(kw_only=True)
class Person:
    """An invented person with a reference file at ``resources/people/<slug>.html``."""

    name: str
    slug: str
    claim: str

    @property
    def path(self) -> str:
        """The person file's repo path."""
        return f"resources/people/{self.slug}.html"

    @property
    def entity(self) -> str:
        """The ``person:<slug>`` entity reference."""
        return f"person:{self.slug}"


PEOPLE: Final[tuple[Person, ...]] = (
    Person(
        name="Maren Quillfeather",
        slug="maren-quillfeather",
        claim="Maren Quillfeather chairs the platform guild and keeps its design notes.",
    ),
    Person(
        name="Tobias Renwick",
        slug="tobias-renwick",
        claim="Tobias Renwick leads the reliability rota and writes the quarterly reviews.",
    ),
    Person(
        name="Ilse Varga",
        slug="ilse-varga",
        claim="Ilse Varga owns vendor contracts and signs off every procurement request.",
    ),
    Person(
        name="Joaquin Harrowgate",
        slug="joaquin-harrowgate",
        claim="Joaquin Harrowgate mentors new engineers during their first two months.",
    ),
)

STOPWORDS: Final[frozenset[str]] = frozenset(
    {
        "a",
        "an",
        "the",
        "and",
        "or",
        "but",
        "of",
        "in",
        "on",
        "at",
        "to",
        "for",
        "from",
        "by",
        "with",
        "as",
        "into",
        "over",
        "about",
        "than",
        "then",
        "this",
        "that",
        "these",
        "those",
        "it",
        "its",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "do",
        "does",
        "did",
        "will",
        "would",
        "should",
        "must",
        "can",
        "could",
        "may",
        "per",
        "each",
        "has",
        "have",
    }
)
"""Function words dropped from a probe's query (docs/evaluation.md §A.2: "a fixed list of ~44")."""

QUALIFIERS: Final[tuple[str, ...]] = ("pro", "beta", "legacy", "experimental", "preview")
"""The variant family's qualifiers, picked by the target path's code-point sum mod 5."""

NEGATION_WORDS: Final[frozenset[str]] = NEGATION_MARKERS
"""The negation family's marker set: the polarity step's own list (docs/decisions.md §9)."""

NEGATION_ANCHORS: Final[tuple[str, ...]] = (
    "should",
    "must",
    "will",
    "does",
    "were",
    "was",
    "are",
    "can",
    "is",
    "do",
)
"""Auxiliaries a negation control puts ``not`` after, tried in this order."""
