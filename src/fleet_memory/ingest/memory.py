"""The agent's memory as context for a put (stage ``memory``, before extraction): one query for
the whole put, covering each (agent, user, session) group of its episodes
(``store.reads.context.agent_context``), however many pronouns or names the put holds.

- People of the recent units: the agent's units of the same user (never another user's), same
  session first, whose event date lies within ``temporal_window_hours`` before the group's latest
  episode: their speakers and the PERSON entities they mention (an entity of another label counts
  when its name is a known first name: "Carol" stored as ORG). Ordered least relevant first —
  lower-ranked units first, then by position in the unit — so coreference, seeding its discourse
  with them, takes the most relevant person as the latest antecedent; the put's own mentions come
  later still and win.
- The gazetteer: stored entities whose name or alias is one of the capitalised word runs (1-3
  words, at most ``MAX_NAMES`` per group) of the group's texts, with their stored labels.

Pure apart from the one query the caller runs for all groups (``GroupQuery``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from ..clock import shifted
from ..naming import normalize_name
from ..store.reads.context import ContextQuery, KnownName, RecentPerson
from .names import is_first_name
from .records import AgentContext, Episode

__all__ = ["Group", "GroupQuery", "MAX_NAMES", "candidate_names", "put_context", "groups_of"]

MAX_NAMES = 200
_CAPITALISED = re.compile(r"[A-Z][\w'’.-]*")
_RUN = re.compile(r"[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)*")


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


def groups_of(episodes: Sequence[Episode], window: timedelta) -> list[Group]:
    """The (agent, user, session) groups of a put, in first-appearance order."""
    members: dict[tuple[str, str | None, str | None], list[int]] = {}
    for index, e in enumerate(episodes):
        members.setdefault((e.agent_id, e.user_id, e.session_id), []).append(index)
    groups = []
    for (agent, user, session), indexes in members.items():
        dates = [episodes[i].event_date for i in indexes]
        names = candidate_names([episodes[i].content for i in indexes])
        since = shifted(min(dates), -window)  # a put dated in year 1 looks back no further
        groups.append(Group(tuple(indexes), ContextQuery(agent, user, session, since, max(dates), tuple(names))))
    return groups


def put_context(episodes: Sequence[Episode], window: timedelta, query: GroupQuery) -> AgentContext:
    """The put's ``AgentContext``: ``query`` runs once, for all groups."""
    people: dict[int, tuple[str, ...]] = {}
    speakers: dict[int, frozenset[str]] = {}
    known: dict[str, dict[str, str]] = {}
    groups = groups_of(episodes, window)
    answers = query([g.query for g in groups]) if groups else []
    for group, (recent, names) in zip(groups, answers):
        recent = [p for p in recent if p.label == "PERSON" or is_first_name(p.name.split()[0])]
        ordered = sorted(recent, key=lambda p: (-p.rank, p.position))
        names_in_order: list[str] = []
        for person in ordered:
            if person.name in names_in_order:
                names_in_order.remove(person.name)
            names_in_order.append(person.name)
        talkers = frozenset(p.name for p in recent if p.position < 0)
        for index in group.indexes:
            people[index] = tuple(names_in_order)
            speakers[index] = talkers
        gazetteer = known.setdefault(group.query.agent_id, {})
        for entry in names:
            label = "PERSON" if is_first_name(entry.name.split()[0]) else entry.label
            gazetteer.setdefault(entry.normalized_name, label)
            for alias in entry.aliases:
                gazetteer.setdefault(normalize_name(alias), label)
    return AgentContext(people, speakers, known)
