"""The fixture generator: a pure function of ``(seed, size, probes, now)``
(docs/evaluation.md §A.2).

Ordinal ``i`` fixes a base memory's topic (``i % 12``), type (``i % 9``), kit (``i % 9``),
environment word (``i % 23``) and noun (``(i // 36) % 5``), so no two base memories share
(topic, type, noun, environment) up to 4,140 memories; the seed only moves the jitter stream
(verb, number, confidence, importance, lateness, people, validity) and the access stream.
"""

from __future__ import annotations

import datetime as dt
from typing import Final

import attrs

from memhtml.app.eval.discrimination import texts
from memhtml.app.eval.discrimination.controls import control_claims, control_title
from memhtml.app.eval.discrimination.fixture import (
    DAY_MS,
    ControlSpec,
    Fixture,
    FixtureFile,
    ProbeSpec,
    epoch_ms_of,
    instant_of,
    resolved_now_ms,
)
from memhtml.app.eval.discrimination.prng import SplitMix64, access_seed
from memhtml.app.eval.discrimination.probes import query_of, select_targets
from memhtml.app.eval.discrimination.salience import access_rows
from memhtml.app.eval.discrimination.topics import ENVIRONMENT_WORDS, PEOPLE, TOPICS, Topic
from memhtml.domain.datetimes import utc_stamp
from memhtml.domain.model import Link, RenderInputs
from memhtml.domain.paths import slugify
from memhtml.domain.vocabulary import MEMORY_RELS

SPAN_DAYS: Final = 240
"""Base memories are spread over days 0–239; access stamps fall on days 240–259."""
LATE_UPDATE_DAYS: Final = 3
FAR_FUTURE_DAYS: Final = 3650
EARLIER_CREATED_DAYS: Final = -40
ARCHIVED_AT_DAYS: Final = -1
ARCHIVE_EVERY: Final = 6
PART_OF_EVERY: Final = 4
AUTHORED_EVERY: Final = 11
PARTNER_AHEAD: Final = 12
PARTNER_RELS: Final[tuple[str, ...]] = tuple(
    r for r in MEMORY_RELS if r not in ("supersedes", "fixes")
)
"""The cycling partner relation; ``supersedes`` is kept for the archive tier's own edges, and
``fixes`` (issue 15) for its own probe family, so the base fixture is what it was before."""
SERVICE_ENTITY: Final = "service:{workspace}"
TYPE_DIRS: Final[dict[str, str]] = {
    "episodic": "projects/{workspace}/log",
    texts.SEMANTIC: "resources/{tag}",
    texts.PROCEDURAL: "areas/{area}/runbooks",
    "agent_insight": "areas/{area}/insights",
    "user_preference": "areas/preferences",
    "error_pattern": "projects/{workspace}/incidents",
    "verdict": "projects/{workspace}/decisions",
    "precedent": "resources/precedents",
    texts.ARC: "areas/arcs",
}


@attrs.frozen(kw_only=True)
class _Base:
    """A base memory as planned, before links."""

    ordinal: int
    topic: Topic
    wording: texts.Wording
    noun_index: int
    directory: str
    path: str
    inputs: RenderInputs
    person: int | None


def build_fixture(seed: int, size: int, probes: int, now_ms: int | None) -> Fixture:
    """Generate the whole fixture. Same inputs, same value, on every run and every Python.

    Raises:
        ValueError: ``size`` or ``probes`` is negative.
    """
    if size < 0 or probes < 0:
        raise ValueError("size and probes must be >= 0")
    epoch = epoch_ms_of(now_ms)
    jitter = SplitMix64(seed)
    bases = [_plan_base(i, size, epoch, jitter) for i in range(size)]
    bases = _with_links(bases, size)
    candidates = [b for b in bases if b.wording.memory_type in (texts.SEMANTIC, texts.PROCEDURAL)]
    targets = select_targets(
        candidates,
        probes,
        lambda b: bool(control_claims(texts.claim_of(b.wording), b.topic.anchor, b.path)),
    )
    controls, probe_specs = _controls(targets)
    archived, bases = _archive_tier(bases, epoch)
    people = [_person_file(i, epoch) for i in range(len(PEOPLE))]
    base_files = [FixtureFile(path=b.path, inputs=b.inputs, role="base") for b in bases]
    stream = SplitMix64(access_seed(seed))
    rows = access_rows([f.path for f in (*people, *base_files)], stream, epoch)
    return Fixture(
        seed=seed,
        size=size,
        requested_probes=probes,
        now_ms=resolved_now_ms(now_ms),
        epoch_ms=epoch,
        files=(*people, *base_files, *controls, *archived),
        probes=tuple(probe_specs),
        access_rows=rows,
    )


def stamp_at(epoch_ms: int, days: int, hours: int = 0) -> str:
    """The UTC stamp ``days`` days and ``hours`` hours after the epoch."""
    return utc_stamp(instant_of(epoch_ms + days * DAY_MS + hours * 3_600_000))


def _shift(stamp: str, days: int) -> str:
    instant = dt.datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=dt.UTC)
    return utc_stamp(instant + dt.timedelta(days=days))


def _plan_base(i: int, size: int, epoch: int, jitter: SplitMix64) -> _Base:
    topic = TOPICS[i % len(TOPICS)]
    memory_type = texts.BASE_TYPES[i % len(texts.BASE_TYPES)]
    noun_index = (i // (len(TOPICS) * 3)) % len(topic.nouns)
    # Every draw happens for every memory, used or not, so the stream stays aligned.
    verb = topic.verbs[jitter.below(len(topic.verbs))]
    number = 2 + jitter.below(58)
    confidence = (60 + jitter.below(41)) / 100
    importance = 1 + jitter.below(10)
    late = jitter.next_float() < 0.3
    with_person = jitter.next_float() < 0.2
    person = jitter.below(len(PEOPLE))
    far_future = jitter.next_float() < 0.1
    wording = texts.Wording(
        topic=topic,
        memory_type=memory_type,
        noun=topic.nouns[noun_index],
        verb=verb,
        env=ENVIRONMENT_WORDS[i % len(ENVIRONMENT_WORDS)],
        number=number if memory_type == texts.SEMANTIC else None,
    )
    directory = TYPE_DIRS[memory_type].format(
        workspace=topic.workspace, tag=topic.tags[0], area=topic.area
    )
    title = texts.title_of(wording)
    path = f"{directory}/{slugify(title)}-{texts.letter_code(i)}.html"
    created = stamp_at(epoch, (i * SPAN_DAYS) // max(1, size), 8 + i % 10)
    entities = [SERVICE_ENTITY.format(workspace=topic.workspace)]
    if with_person:
        entities.append(PEOPLE[person].entity)
    inputs = RenderInputs(
        title=title,
        memory_type=memory_type,
        created_at=created,
        updated_at=_shift(created, LATE_UPDATE_DAYS) if late else created,
        article_html=_article(texts.claim_of(wording), topic, noun_index, i, verb, created),
        tags=topic.tags,
        entities=tuple(entities),
        confidence=confidence,
        importance=importance,
        valid_until=stamp_at(epoch, FAR_FUTURE_DAYS) if far_future else None,
    )
    return _Base(
        ordinal=i,
        topic=topic,
        wording=wording,
        noun_index=noun_index,
        directory=directory,
        path=path,
        inputs=inputs,
        person=person if with_person else None,
    )


def _article(claim: str, topic: Topic, noun_index: int, i: int, verb: str, stamp: str) -> str:
    body = texts.body_sentences(topic, noun_index, i)
    kit = texts.kit_html(i % texts.KIT_COUNT, topic, noun_index, verb, stamp)
    return texts.article_html(claim, body, kit)


def _with_links(bases: list[_Base], size: int) -> list[_Base]:
    """Add the edges once every path exists, so none dangles (docs/evaluation.md §A.2 "Links")."""
    arcs = [b.path for b in bases if b.wording.memory_type == texts.ARC]
    linked: list[_Base] = []
    non_arc = 0
    for b in bases:
        links: list[Link] = []
        if b.wording.memory_type != texts.ARC:
            if arcs and non_arc % PART_OF_EVERY == 0:
                links.append(Link("part_of", arcs[(non_arc // PART_OF_EVERY) % len(arcs)]))
            non_arc += 1
        partner = (b.ordinal + PARTNER_AHEAD) % size
        if partner != b.ordinal:
            rel = PARTNER_RELS[b.ordinal % len(PARTNER_RELS)]
            links.append(Link(rel, bases[partner].path))
        if b.person is not None:
            links.append(Link("about_person", PEOPLE[b.person].path))
        if b.ordinal % AUTHORED_EVERY == 0:
            author = PEOPLE[(b.ordinal // AUTHORED_EVERY) % len(PEOPLE)]
            links.append(Link("authored_by", author.path))
        inputs = attrs.evolve(b.inputs, links=tuple(dict.fromkeys(links)))
        linked.append(attrs.evolve(b, inputs=inputs))
    return linked


def _controls(targets: list[_Base]) -> tuple[list[FixtureFile], list[ProbeSpec]]:
    """Each target's validated controls: same directory, flipped claim, one day newer."""
    files: list[FixtureFile] = []
    specs: list[ProbeSpec] = []
    for target in targets:
        claim = texts.claim_of(target.wording)
        controls: list[ControlSpec] = []
        for family, flipped in control_claims(claim, target.topic.anchor, target.path):
            title = control_title(family, target.inputs.title)
            path = f"{target.directory}/{slugify(title)}-{texts.letter_code(target.ordinal)}.html"
            created = _shift(target.inputs.created_at, 1)
            inputs = attrs.evolve(
                target.inputs,
                title=title,
                created_at=created,
                updated_at=_shift(target.inputs.updated_at, 1),
                article_html=_article(
                    flipped,
                    target.topic,
                    target.noun_index,
                    target.ordinal,
                    target.wording.verb,
                    created,
                ),
                links=(),
            )
            files.append(FixtureFile(path=path, inputs=inputs, role="control"))
            controls.append(ControlSpec(path=path, family=family, claim=flipped))
        specs.append(
            ProbeSpec(
                query=query_of(claim),
                target_path=target.path,
                target_claim=claim,
                controls=tuple(controls),
            )
        )
    return files, specs


def _archive_tier(bases: list[_Base], epoch: int) -> tuple[list[FixtureFile], list[_Base]]:
    """Every 6th procedural memory gets an archived earlier copy that it ``supersedes``."""
    archived: list[FixtureFile] = []
    updated: list[_Base] = []
    archived_at = stamp_at(epoch, ARCHIVED_AT_DAYS)
    year = archived_at[:4]
    procedural = 0
    for b in bases:
        if b.wording.memory_type != texts.PROCEDURAL:
            updated.append(b)
            continue
        procedural += 1
        if (procedural - 1) % ARCHIVE_EVERY != 0:
            updated.append(b)
            continue
        stem = b.path.rsplit("/", 1)[1].removesuffix(".html")
        path = f"archive/{year}/{b.directory}/{stem}-earlier.html"
        created = stamp_at(epoch, EARLIER_CREATED_DAYS, 8 + b.ordinal % 10)
        inputs = attrs.evolve(
            b.inputs,
            title=b.inputs.title + texts.EARLIER_TITLE_SUFFIX,
            created_at=created,
            updated_at=archived_at,
            valid_until=archived_at,
            article_html=_article(
                texts.earlier_claim_of(b.wording),
                b.topic,
                b.noun_index,
                b.ordinal,
                b.wording.verb,
                created,
            ),
            links=(),
        )
        archived.append(
            FixtureFile(
                path=path,
                inputs=inputs,
                role="archived",
                archived_at=archived_at,
                superseded_by=b.path,
            )
        )
        live_links = (*b.inputs.links, Link("supersedes", path))
        updated.append(attrs.evolve(b, inputs=attrs.evolve(b.inputs, links=live_links)))
    return archived, updated


def _person_file(index: int, epoch: int) -> FixtureFile:
    person = PEOPLE[index]
    stamp = stamp_at(epoch, 0, 8)
    inputs = RenderInputs(
        title=person.name,
        memory_type=texts.SEMANTIC,
        created_at=stamp,
        updated_at=stamp,
        claim=person.claim,
        entities=(person.entity,),
    )
    return FixtureFile(path=person.path, inputs=inputs, role="person")
