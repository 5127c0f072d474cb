"""The agent's memory as context for a put (stage ``memory``, before extraction): one query for
the whole put, covering each (agent, user, session) group of its episodes
(``store.reads.context.agent_context``), however many pronouns or names the put holds.

- People of the recent units (only for a group whose texts hold a he/she- or they-family word:
  no other word reads them): the agent's units of the same user (never another user's), same
  session first, whose event date lies within ``temporal_window_hours`` (at least
  ``PEOPLE_WINDOW``, 180 days: a person introduced in March is "she" in July's message when
  memory knows no one else who takes "she") before the group's latest episode: their speakers
  and the PERSON entities they mention (an entity of another label counts when its name is a
  known first name, "Carol" stored as ORG, not a place's, or when its own unit calls it he or
  she; a name its unit only writes about, "my essay on Dickens", does not).
  Ordered least relevant first — lower-ranked units first, then by position in the unit — so
  coreference, seeding its discourse with them, takes the most relevant person as the latest
  antecedent; the put's own mentions come later still and win.
- ``mentions``: the same people unit by unit, each with the pronoun memory uses for them
  (a gendered role or title first, "my sister Priya", "Mr Haddad"; else ``genders.pronouns_in``,
  "Ravi, he …"; else the given-name list's: ``names.listed_gender``) and, as rivals, the people a unit
  names by a gendered role alone ("my dad") or by a role and a name the NER missed
  (``genders.other_people``), so coreference can tell when no antecedent is clearly right. Every
  recent unit's text is read, those that name no one too ("Kai says he …" where the model missed
  Kai teaches Kai's pronoun; "Called my mum" brings a rival). A name of no known pronoun that
  nothing marks as a person's is marked so (``RecentMention.marked``, ``_like_a_person``: no listed
  given name, title, role, given name beside it, company or deed of a person): coreference does not
  let it stand against someone known to take the pronoun — the small model's PERSON "Porto" ("a 3
  day itinerary for Porto") was a rival to every person memory knew.
- ``relatives`` (only for a group whose texts name a relative by the relation alone, "my daughter",
  in the user's own words): relation → the one person the user's units name by it ("my daughter
  Aoife"), read from the user's own texts the store finds among the agent's latest units at any date
  (``ingest.kin``).
- The gazetteer: stored entities whose name or alias is one of the capitalised word runs (1-3
  words, at most ``MAX_NAMES`` per group) of the group's texts, with their stored labels.

Pure apart from the one query the caller runs for all groups (``GroupQuery``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from ..clock import shifted
from ..naming import UPPER, normalize_name
from ..store.reads.context import RELATIVE_TEXT, ContextQuery, KnownName, RecentPerson
from .genders import (name_words, named_by_role, names_a_pet_or_a_ship, only_after_article, only_as_place,
                      only_as_topic, other_people, pronouns_in, referred_by_subject, refers_by_pronoun, serves,
                      title_gender, unnamed_people, with_title, without_title)
from .kin import SQL_PATTERN, mentions_relative, relatives
from .names import is_acronym, is_first_name, is_listed_name, listed_gender
from .records import AgentContext, Episode, RecentMention

__all__ = ["Group", "GroupQuery", "MAX_NAMES", "PEOPLE_WINDOW", "candidate_names",
           "put_context", "groups_of"]

MAX_NAMES = 200
PEOPLE_WINDOW = timedelta(days=180)
_CAPITALISED = re.compile(rf"{UPPER}[\w'’.-]*")
_RUN = re.compile(rf"{UPPER}[\w'’-]*(?:\s+{UPPER}[\w'’-]*)*")


@dataclass(frozen=True, slots=True)
class Group:
    """Episodes of one (agent, user, session): their indexes and what to ask the store."""

    indexes: tuple[int, ...]
    query: ContextQuery


GroupQuery = Callable[[Sequence[ContextQuery]], list[tuple[list[RecentPerson], list[KnownName]]]]


def candidate_names(texts: Sequence[str], limit: int = MAX_NAMES) -> list[str]:
    """Capitalised word runs of the texts and their sub-runs of 1-3 words, each once, at most ``limit``."""
    out: dict[str, None] = {}
    for text in texts:
        for run in _RUN.finditer(text):
            words = [normalize_name(w) for w in run.group(0).split()]
            for size in (1, 2, 3):
                for i in range(len(words) - size + 1):
                    name = " ".join(words[i:i + size])
                    if len(name) >= 2:
                        out.setdefault(name, None)
                        if len(out) >= limit:
                            return list(out)
    return list(out)


def groups_of(episodes: Sequence[Episode], window: timedelta, name_relatives: bool = True) -> list[Group]:
    """The (agent, user, session) groups of a put, in first-appearance order."""
    members: dict[tuple[str, str | None, str | None], list[int]] = {}
    for index, e in enumerate(episodes):
        members.setdefault((e.agent_id, e.user_id, e.session_id), []).append(index)
    groups = []
    for (agent, user, session), indexes in members.items():
        dates = [episodes[i].event_date for i in indexes]
        names = candidate_names([episodes[i].content for i in indexes])
        since = shifted(min(dates), -window)  # a put dated in year 1 looks back no further
        people = any(refers_by_pronoun(episodes[i].content) for i in indexes)  # else names alone
        asks = name_relatives and any(mentions_relative(episodes[i].content) for i in indexes) and not any(
            episodes[i].speaker for i in indexes)  # a speaker's "my" is not the user's
        groups.append(Group(tuple(indexes), ContextQuery(agent, user, session, since, max(dates), tuple(names),
                                                         people=people, relatives=SQL_PATTERN if asks else None)))
    return groups


def put_context(episodes: Sequence[Episode], window: timedelta, query: GroupQuery,
                name_relatives: bool = True) -> AgentContext:
    """The put's ``AgentContext``: ``query`` runs once, for all groups."""
    people: dict[int, tuple[str, ...]] = {}
    speakers: dict[int, frozenset[str]] = {}
    mentions: dict[int, tuple[RecentMention, ...]] = {}
    kin: dict[int, dict[str, str | None]] = {}
    known: dict[str, dict[str, str]] = {}
    groups = groups_of(episodes, max(window, PEOPLE_WINDOW), name_relatives)
    answers = query([g.query for g in groups]) if groups else []
    for group, (found, names) in zip(groups, answers):
        rows = [p for p in found if p.position != RELATIVE_TEXT]
        texts = {p.rank: p.text for p in rows}
        recent = [_as_person(p) for p in rows if p.name and (p.label == "PERSON" or _named_like_a_person(p)
                                                             or _referred_to(p, texts, rows))]
        ordered = sorted(recent, key=lambda p: (-p.rank, p.position))
        names_in_order: list[str] = []
        for person in ordered:
            if person.name in names_in_order:
                names_in_order.remove(person.name)
            names_in_order.append(person.name)
        talkers = frozenset(p.name for p in recent if p.position < 0)
        dates = {p.rank: p.at for p in rows}
        until = group.query.until  # a put dated in year 1 looks back no further (``shifted``)
        messages = list(dict.fromkeys(p.message for p in rows if p.message))
        told = _mentions(recent, texts, frozenset(dates) - _stale(dates, shifted(until, -window)), messages)
        named = relatives(p.text for p in found if p.position == RELATIVE_TEXT)
        for index in group.indexes:
            people[index] = tuple(names_in_order)
            speakers[index] = talkers
            mentions[index] = told
            kin[index] = named
        gazetteer = known.setdefault(group.query.agent_id, {})
        for entry in names:
            label = "PERSON" if is_first_name(entry.name.split()[0]) else entry.label
            gazetteer.setdefault(entry.normalized_name, label)
            for alias in entry.aliases:
                gazetteer.setdefault(normalize_name(alias), label)
    return AgentContext(people, speakers, known, mentions=mentions, relatives=kin)


def _as_person(person: RecentPerson) -> RecentPerson:
    """A span of another label taken for a person is cut to its leading capitalised words: the
    model's WORK_OF_ART "Tomasz for my knee" is Tomasz."""
    if person.label == "PERSON" or person.position < 0:
        return person
    words = person.name.split()
    kept = next((i for i, w in enumerate(words) if not w[:1].isupper()), len(words))
    return replace(person, name=" ".join(words[:kept])) if 0 < kept < len(words) else person


_PLACE_LABELS = frozenset({"GPE", "LOC", "FAC"})


def _named_like_a_person(person: RecentPerson) -> bool:
    """A name of another label that starts with a known first name ("Carol" stored as ORG) — not a
    place's: "Is that normal for Valencia?" names a city."""
    return person.label not in _PLACE_LABELS and is_first_name(person.name.split()[0])


def _referred_to(person: RecentPerson, texts: Mapping[int, str], rows: Sequence[RecentPerson]) -> bool:
    """A name of another label that its own unit refers back to as "he" or "she" is a person: the
    small model reads "Had lunch with Mateo from work today and he recommended …" as a place,
    "Yusuf is my team lead, he's …" as a work of art (``genders.referred_by_subject``)."""
    if is_acronym(person.name):
        return False  # "Can you suggest 5 SQL questions she should practise": she is someone else
    text = texts.get(person.rank, "")
    others = [p.name for p in rows if p.rank == person.rank and p.name != person.name and p.name[:1].isupper()]
    return person.position >= 0 and referred_by_subject(text, person.name, others)


def _stale(dates: Mapping[int, datetime | None], before: datetime) -> frozenset[int]:
    """The ranks of the units stated before ``before``."""
    return frozenset(rank for rank, at in dates.items() if at is not None and at < before)


def _mentions(recent: Sequence[RecentPerson], texts: Mapping[int, str], fresh: frozenset[int] = frozenset(),
              messages: Sequence[str] = ()) -> tuple[RecentMention, ...]:
    """The recent people unit by unit (``texts``: each unit's text by rank), least relevant unit
    first, each with the pronoun the units' texts give them (any unit that names them, or the
    message it came from as it was put, ``messages``: "I saw Dr Haddad … She seemed really
    thorough." though coreference stored "Haddad seemed …"; texts that disagree leave it
    unknown), after the rivals each unit mentions; a PERSON its unit names only as a place ("a
    flat in Bonfim") or after an article ("the Louvre") is left out. A name after a person's role
    that the NER missed ("my mother-in-law Keiko": ``genders.named_by_role``) is one of its unit's
    people too, and so is one named by a gendered role alone ("Called my mum": "my mum",
    ``genders.unnamed_people``: "She's fine" becomes "My mum is fine"); a name written after a
    title goes by both ("Dr Nakamura": ``genders.with_title``). Each person is marked when their
    unit names them as someone met for a service (``genders.serves``: "my physio, Dana", "Dr
    Okafor"): weeks after "My friend Benedikt is running the marathon", "Had my check-up - she
    said my results are fine" is someone new (coreference leaves a pronoun in a message that tells
    of such an encounter to the people who serve). A person of unknown pronoun is a candidate for
    the whole window: they were a rival only after a week, until the check-up's "she" had its own
    guard; that left "my physio, Dana" and "Dr Okafor" unresolved a month later. A unit of
    ``fresh`` was stated within the put's temporal window (coreference lets the last person named
    that day take the pronoun even when memory knows another who takes it)."""
    units = _people_by_unit(recent, texts)
    speakers = {p.name for p in recent if p.position < 0}
    everyone = {n for people in units.values() for n, _ in people if n not in speakers}
    learnt: dict[str, str | None] = {}
    for text in [*texts.values(), *messages]:
        for name, gender in pronouns_in(text, [n for n in everyone if n in text]).items():
            learnt[name] = gender if learnt.get(name, gender) == gender else None
    out: list[RecentMention] = []
    for rank in sorted(units, reverse=True):
        named = [n for n, _ in units[rank] if n not in speakers]
        out += [RecentMention("", gender, rank) for gender in other_people(texts.get(rank, ""), named, unnamed=False)]
        for name, gender in units[rank]:
            # a gendered role or title says it outright ("Ms Petrova … thinks he's ready" is about her
            # pupil); else what the texts say; else the given-name list ("Kenji")
            pronoun = gender or (learnt[name] if name in learnt else listed_gender(without_title(name) or name))
            text = texts.get(rank, "")
            marked = pronoun is not None or any(_like_a_person(name, t) for t in (text, *messages) if name in t)
            out.append(RecentMention(name, pronoun, rank, rank in fresh, serves(text, name),
                                     names_a_pet_or_a_ship(text), marked))
    return tuple(out)


def _like_a_person(name: str, text: str) -> bool:
    """What in ``text`` (its unit's, or a message memory holds) marks a name of unknown pronoun as a
    person's: a given name of the lists as its first word ("Oksana"), a title ("Dr Achebe", or
    "Haddad seemed thorough" where the message said "Dr Haddad"), a role it was named by ("my
    neighbour Oksana", "my cousin"), a given name it is paired with ("Jess and Keziah"), someone's
    company or what only people do ("a meeting with Kowalski", "Kowalski says …"). The small
    model calls places and things persons ("a 3 day itinerary for Porto", "the usual Big Ben and
    Buckingham Palace stuff", "his old Golf"); as a person of unknown pronoun such a name was a
    rival to everyone, and the only candidate when memory knew no one else."""
    return (name.startswith(("my ", "our ")) or without_title(with_title(text, name)) is not None
            or is_listed_name(name.split()[0]) or any(name in (n, s) for n, s, _ in named_by_role(text))
            or any(is_listed_name(other) for other in _beside(text, name)) or _acts_as_a_person(text, name))


# what only people do, said with the name: "Kowalski says …"; and time spent in someone's company,
# "a meeting with Kowalski" (not "a direct debit with Santander", "I bank with Lloyds")
_PERSON_VERBS = ("said|says|told|tells|asked|asks|wants|wanted|thinks|thought|reckons|texted|messaged|emailed|rang"
                 "|suggested|recommended|agreed|offered|promised|mentioned|explained|replied|invited|helped")
_COMPANY = ("meeting|meet|met|lunch|dinner|breakfast|coffee|drinks?|chat|date|talk|talked|spoke|speaking|hung out"
            "|walk|run|played|stayed|staying|climbing|hiking|training")


def _acts_as_a_person(text: str, name: str) -> bool:
    """``text`` has ``name`` as someone's company ("a long meeting with Kowalski", "climbing with
    Keziah") or doing what only people do ("Kowalski wants it by Friday")."""
    n = re.escape(name)
    return re.search(rf"\b(?:{_COMPANY}) with {n}\b|\b{n} (?:{_PERSON_VERBS})\b", text, re.IGNORECASE) is not None


def _beside(text: str, name: str) -> list[str]:
    """The capitalised words joined to ``name`` by "and" or "&" ("Jess and Keziah"): one of a pair
    of given names is a person too."""
    n = re.escape(name)
    return [m.group(1) or m.group(2) for m in re.finditer(rf"(?:\b([A-Z][\w'’-]*) (?:and|&) {n}\b"
                                                          rf"|\b{n} (?:and|&) ([A-Z][\w'’-]*))", text)]


def _people_by_unit(recent: Sequence[RecentPerson],
                    texts: Mapping[int, str]) -> dict[int, list[tuple[str, str | None]]]:
    """Per unit (by rank): its people in text order, ``(name as the unit writes it, pronoun of its role)``."""
    units: dict[int, list[tuple[str, str | None]]] = {rank: [] for rank in texts}
    for person in sorted(recent, key=lambda p: p.position):
        text = texts.get(person.rank, "")
        elsewhere = (only_as_place(text, person.name) or only_after_article(text, person.name)
                     or only_as_topic(text, person.name))
        if person.position < 0 or not elsewhere:
            surface = with_title(text, person.name)
            units.setdefault(person.rank, []).append((surface, title_gender(surface)))
    for rank, text in texts.items():
        people = units[rank]
        people += unnamed_people(text)
        for name, surface, gender in named_by_role(text):
            at = next((i for i, (n, _) in enumerate(people) if n in (name, surface)), None)
            longer = next((i for i, (n, _) in enumerate(people) if name in name_words(n)), None)
            if at is not None:
                people[at] = (surface, gender)
            elif longer is not None:  # "her grandad, Don Aurelio", "Li Wei, the new guy": the model's longer PERSON
                people[longer] = (people[longer][0], gender or people[longer][1])
            else:
                people.append((surface, gender))
    return _titled(units)


def _titled(units: dict[int, list[tuple[str, str | None]]]) -> dict[int, list[tuple[str, str | None]]]:
    """One person under one surface: a name one unit writes bare ("Haddad wants to do an
    inspection", coreference's rewrite of "He wants …") is the titled person another names ("my
    landlord, Mr Haddad"), when only one title goes with it."""
    titled: dict[str, set[tuple[str, str | None]]] = {}
    for people in units.values():
        for surface, gender in people:
            bare = without_title(surface)
            if bare:
                titled.setdefault(bare, set()).add((surface, gender))
    one = {name: next(iter(found)) for name, found in titled.items() if len(found) == 1}
    return {rank: [one.get(name, (name, gender)) if name in one and gender in (None, one[name][1])
                   else (name, gender) for name, gender in people] for rank, people in units.items()}
