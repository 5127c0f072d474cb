"""Entity resolution: which stored entity (if any) each name mentioned in a batch refers to.

For every distinct name in the batch (first appearance order), per agent:

1. Cheap exact match first: the case- and whitespace-normalised name (``store.tables.entities.
   normalize_name``) equals an entity's normalised name or one of its aliases → that entity. One
   query fetches these and the fuzzy candidates together.
2. Otherwise the few candidates sharing most words / prefix / trigrams with the name (see
   ``name_index``), of a compatible label (same label; GPE/LOC/FAC count as one family)
   that shares a word with the name is scored

       score = 0.5 × name similarity + 0.3 × co-occurrence overlap + 0.2 × temporal proximity

   name similarity = rapidfuzz ratio, raised to 0.9 when one name's words are all in the other
   ("Bob" / "Bob Smith") and, for PERSON, to 0.8 for a short form ("Mel" / "Melanie"), and for
   PERSON 0 when the names share no word and neither is a short form or a misspelling of the
   other (in a circle of friends "Elena" is not "Leila": their letters overlap, and so do the
   names mentioned alongside them, and both were mentioned last week);
   co-occurrence overlap = Jaccard of the names mentioned alongside (in this batch) and the names
   the candidate co-occurs with (stored mentions); temporal proximity = 1 inside the period the
   candidate was mentioned in, falling linearly to 0 at ``entity_recency_days`` before its first
   or after its last mention. The best candidate
   is reused when its score reaches ``entity_threshold`` (0.6), else a new entity is created (and
   becomes a candidate for later names of the batch). The design's lower threshold for an exact
   PERSON name (0.4) needs no setting: an exact name is step 1 and always reuses its entity.

Outcomes worth knowing: two different people called "Alex" resolve to ONE entity — an exact
name is always the same entity (step 1), and names are unique per agent in the schema; units keep their own dates, so recall can still tell them apart by time. "Bob Smith"
after "Bob" in the same conversation scores 0.45 + 0.2 (+ co-occurrence) ≥ 0.6 and joins "Bob" as an
alias; weeks later with nothing in common it scores < 0.6 and becomes its own entity.

Concurrency: the caller holds the agent's advisory lock (``store.tables.entities.lock_entities``) for the
rest of the transaction, and creation is ON CONFLICT on the unique name index, so concurrent puts
never create two entities for one name. Cost: two queries per agent and batch, plus, per name,
one bounded index lookup (``name_index``) and scoring of at most ``CANDIDATES`` candidates: linear
in the number of names (it compared every name with every candidate before, 19 s for 4.6k names).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from uuid import UUID

import psycopg
from rapidfuzz import fuzz
from rapidfuzz.distance import Levenshtein

from ..config import IngestConfig
from ..ids import new_ids
from ..model import Entity
from ..naming import normalize_name
from ..store.tables import entities as entity_sql
from .junk import is_common_alias
from .name_index import NameIndex
from .records import EntityMention

__all__ = ["UnitMentions", "resolve_entities", "name_similarity", "label_family", "entity_score"]

_FAMILIES = {"GPE": "PLACE", "LOC": "PLACE", "FAC": "PLACE"}
CANDIDATES = 16  # scored per name: those sharing most words / prefix / trigrams (``name_index``)


@dataclass(frozen=True, slots=True)
class UnitMentions:
    unit_id: UUID
    event_date: datetime
    mentions: tuple[EntityMention, ...]


def label_family(label: str) -> str:
    return _FAMILIES.get(label, label)


def name_similarity(a: str, b: str, *, person: bool = False) -> float:
    """0..1: rapidfuzz ratio of the normalised names, at least 0.9 when one's words are a subset of
    the other's, and — for people — at least 0.8 when one first name of 3+ letters starts the other
    ("Mel" / "Melanie": a short form). Two people's names that share no word are 0 unless one is a
    short form or a misspelling of the other (``TYPO_MIN_LETTERS``): "Elena" and "Leila", or "Umar"
    and "Marcus", are two people however many letters they share."""
    return _norm_similarity(normalize_name(a), normalize_name(b), person)


TYPO_MIN_LETTERS = 6
"""A person's name of at least this many letters one edit away from another is read as a
misspelling of it ("Carolin" / "Caroline"); shorter names one edit apart are different names
("Maria" / "Mario", "Ana" / "Ava")."""


def _norm_similarity(na: str, nb: str, person: bool) -> float:
    """``name_similarity`` of two names already normalised."""
    if na == nb:
        return 1.0
    score = fuzz.ratio(na, nb) / 100.0
    wa, wb = set(na.split()), set(nb.split())
    if wa and wb and (wa <= wb or wb <= wa):
        score = max(score, 0.9)
    if person and na and nb:
        fa, fb = na.split()[0], nb.split()[0]
        short, long_ = sorted((fa, fb), key=len)
        one_word = len(na.split()) == 1 or len(nb.split()) == 1
        if len(short) >= 3 and short != long_ and long_.startswith(short) and one_word:
            score = max(score, 0.8)
        elif not wa & wb and not _misspelt(na, nb):
            score = 0.0
    return score


def _misspelt(na: str, nb: str) -> bool:
    return min(len(na), len(nb)) >= TYPO_MIN_LETTERS and Levenshtein.distance(na, nb, score_cutoff=1) <= 1


def entity_score(name_sim: float, overlap: float, proximity: float) -> float:
    return 0.5 * name_sim + 0.3 * overlap + 0.2 * proximity


def _proximity(config: IngestConfig, when: datetime, first_seen: datetime | None, last_seen: datetime | None) -> float:
    """1 inside the period the candidate was mentioned in, falling linearly to 0 at
    ``entity_recency_days`` before its first or after its last mention."""
    if last_seen is None:
        return 0.0
    first = first_seen or last_seen
    if first <= when <= last_seen:
        return 1.0
    gap = min(abs((when - first).total_seconds()), abs((when - last_seen).total_seconds()))
    return max(0.0, 1.0 - gap / 86_400.0 / config.entity_recency_days)


@dataclass(slots=True)
class _Name:
    surface: str
    label: str
    first: datetime
    last: datetime
    context: set[str]


CONTEXT_MAX = 64
"""Co-occurrence context is bounded: a unit naming more names than this adds none (it says little
about which names belong together, and its pairs grow with the square of its names), and a name
keeps at most this many context names."""


def _names_of(units: Sequence[UnitMentions]) -> dict[str, _Name]:
    """Every distinct normalised name of the batch (first appearance order), with its period and
    the names mentioned alongside it (at most ``CONTEXT_MAX``)."""
    names: dict[str, _Name] = {}
    for unit in units:
        norms = {normalize_name(m.surface) for m in unit.mentions}
        for m in unit.mentions:
            norm = normalize_name(m.surface)
            if not norm:
                continue
            entry = names.get(norm)
            if entry is None:
                entry = names[norm] = _Name(m.surface, m.label, unit.event_date, unit.event_date, set())
            entry.first = min(entry.first, unit.event_date)
            entry.last = max(entry.last, unit.event_date)
            if len(norms) <= CONTEXT_MAX and len(entry.context) < CONTEXT_MAX:
                entry.context |= norms - {norm}
    return names


def resolve_entities(
    conn: psycopg.Connection, agent_id: str, units: Sequence[UnitMentions], config: IngestConfig
) -> list[entity_sql.Mention]:
    """Resolve (creating where needed) every mentioned name; return the mention rows to record.
    Takes the agent's advisory lock."""
    names = _names_of(units)
    if not names:
        return []
    entity_sql.lock_entities(conn, agent_id)
    tokens = sorted({w for n in names for w in n.split() if len(w) >= 2})
    found = entity_sql.resolution_candidates(conn, agent_id, list(names), tokens)
    exact: dict[str, Entity] = {}
    for e in found:
        for alias in e.aliases:
            exact.setdefault(normalize_name(alias), e)
    for e in found:
        exact[normalize_name(e.name)] = e
    fuzzy_needed = [n for n in names if n not in exact]
    cooc = entity_sql.cooccurring_names(conn, agent_id, [e.id for e in found]) if fuzzy_needed and found else {}
    pool: NameIndex[Entity] = NameIndex()
    norms = _Norms()
    for e in {e.id: e for e in found}.values():
        pool.add(e, [norms[n] for n in (e.name, *e.aliases)])
    resolved: dict[str, UUID] = {}
    created: list[entity_sql.NewEntity] = []
    ids = iter(new_ids(len(names)))  # at most one new entity per name
    for norm, entry in names.items():
        hit = exact.get(norm)
        if hit is not None:
            resolved[norm] = hit.id
            continue
        best = _best_candidate(config, norm, entry, pool, cooc, norms)
        if best is not None and best[0] >= config.entity_threshold:
            resolved[norm] = best[1].id
            continue
        new = entity_sql.NewEntity(next(ids), entry.surface, norm, entry.label, entry.first, entry.last)
        created.append(new)
        resolved[norm] = new.id
        entity = Entity(new.id, agent_id, new.name, new.label, (), new.first_seen, new.last_seen, 0)
        pool.add(entity, [norm])
        exact[norm] = entity
        cooc[new.id] = entry.context
    if created:
        actual = entity_sql.create_entities(conn, agent_id, created)
        real = {new.id: actual.get(new.normalized_name, new.id) for new in created}
        resolved = {norm: real.get(eid, eid) for norm, eid in resolved.items()}
    return _mentions(units, resolved)


class _Norms(dict):
    """Normalised names of one ``resolve_entities`` call, each computed once (a candidate is
    scored against many names)."""

    def __missing__(self, name: str) -> str:
        self[name] = value = normalize_name(name)
        return value


def _best_candidate(config: IngestConfig, norm: str, entry: _Name, pool: NameIndex[Entity],
                    cooc: dict[UUID, set[str]], norms: _Norms) -> tuple[float, Entity] | None:
    """The best-scoring of the few candidates the index offers for ``norm`` (see the docstring);
    ``norm`` is ``entry.surface`` normalised."""
    best: tuple[float, Entity] | None = None
    family = label_family(entry.label)
    for cand in pool.candidates(norm, CANDIDATES):
        if label_family(cand.label) != family:
            continue
        if is_common_alias(entry.surface, cand.name):
            continue  # "SOFTWARE" is not another name for "Python Software Foundation"
        person = family == "PERSON"
        sim = max(_norm_similarity(norm, norms[other], person) for other in (cand.name, *cand.aliases))
        if sim < 0.5:
            continue
        others = cooc.get(cand.id, set())
        union = entry.context | others
        overlap = len(entry.context & others) / len(union) if union else 0.0
        score = entity_score(sim, overlap, _proximity(config, entry.first, cand.first_seen, cand.last_seen))
        if best is None or score > best[0]:
            best = (score, cand)
    return best


def _mentions(units: Sequence[UnitMentions], resolved: dict[str, UUID]) -> list[entity_sql.Mention]:
    mentions: list[entity_sql.Mention] = []
    for unit in units:
        seen: set[UUID] = set()
        for m in unit.mentions:
            eid = resolved.get(normalize_name(m.surface))
            if eid is None or eid in seen:
                continue
            seen.add(eid)
            mentions.append(entity_sql.Mention(unit.unit_id, eid, m.surface, unit.event_date))
    return mentions
