"""A put's supersession step: which older units of the agent the put's new units supersede, and
the links recorded. ``supersede_put`` runs inside the put's transaction: candidates by embedding
(``store.tables.supersession.similar_units``), the pairs the offline rule would refuse before any
parse left out (``ingest.change_rule.may_link``), one parse of the texts involved, the rule
(``change_rule.rule_pairs``), and the links written onto each line's current version (``record``).

With an LLM (``LLMConfig`` set and ``IngestConfig.llm_supersession`` on) the pairs that pass the
rule's first test (close enough) and share a holder or a slot — a wider net than the rule's — go to
it in ONE structured call per put; each pair is answered ``update``, ``duplicate`` or ``unrelated``
and validated like extraction (``providers.llm.structured_call``: an invalid answer is retried).
``update`` and ``duplicate`` supersede; the LLM's answer replaces the rule's for the pairs it names
(a pair it leaves out keeps the rule's decision). When the judge fails — the endpoint is down, or no
valid answer comes after the retries — the put does not fail: the offline rule decides every pair,
and a warning is logged (the units were stored already; supersession only refines them). The judge
runs after the put's transaction has committed (``judge_after_commit``): candidates and the rule in
one short transaction (``read_candidates``), the call outside any (``with_llm``), the result in
another (``record``), so no transaction stays open while the model answers.

A put calls this module in one step: ``supersede_put`` inside its transaction (the rule, and the
corrections an ``update`` states), then, with an LLM judge, ``judge_after_commit``.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from typing import Literal
from uuid import UUID

import numpy as np
import psycopg
from pydantic import BaseModel, Field

from ..clock import Clock
from ..config import IngestConfig
from ..errors import FleetMemoryError, ProviderError
from ..providers.embedder import Embedder
from ..providers.llm import LLM, structured_call
from ..providers.nlp import NLP
from ..store import Database
from ..store.linking.embedding_cache import EmbeddingCache
from ..store.tables import supersession as sup_sql
from .change_rule import Fact, Pair, may_change, may_link, rule_pairs, speaker_key
from .records import Episode, WrittenPut, WrittenUnit
from .statements import is_question

__all__ = ["llm_verdicts", "Verdicts", "supersede_put", "judge_after_commit", "StatedUnit", "stated_by_agent",
           "Judged", "read_candidates", "with_llm", "record"]

_log = logging.getLogger(__name__)
_END_OF_TIME = datetime.max.replace(tzinfo=timezone.utc)  # "current" = not superseded at all


class Verdict(BaseModel):
    pair: int = Field(ge=0)
    verdict: Literal["update", "duplicate", "unrelated"]


class Verdicts(BaseModel):
    verdicts: list[Verdict]


_PROMPT = (
    "Each numbered pair holds an OLDER and a NEWER memory of the same user. Answer for every pair: "
    "'update' when the newer states the current value of the same thing the older stated about the same "
    "subject (a move, a new job, a new number, a changed or cancelled plan, a rename), 'duplicate' when it "
    "says the same thing again, 'unrelated' otherwise (different subjects, or both can be true at once). "
    "Answer with JSON only: {\"verdicts\": [{\"pair\": N, \"verdict\": ...}]}."
)


def llm_verdicts(llm: LLM, pairs: Sequence[tuple[Fact, Fact]], *, retries: int = 2) -> dict[int, str]:
    """ONE structured call for all pairs (older, newer): ``{pair index: verdict}`` for the pairs the
    answer names (indexes outside the list are ignored; a pair named twice keeps its first verdict).
    Raises ``ProviderError`` (``ExtractionError`` for an invalid answer after the retries)."""
    if not pairs:
        return {}
    lines = [f"#{i} OLDER ({o.event_date.date().isoformat()}): {o.text}\n   NEWER ({n.event_date.date().isoformat()}):"
             f" {n.text}" for i, (o, n) in enumerate(pairs)]
    messages = [{"role": "system", "content": _PROMPT}, {"role": "user", "content": "\n".join(lines)}]
    answer = structured_call(llm, messages, Verdicts, retries=retries)
    out: dict[int, str] = {}
    for v in answer.verdicts:
        if v.pair < len(pairs):
            out.setdefault(v.pair, v.verdict)
    return out


@dataclass(frozen=True, slots=True)
class StatedUnit:
    """A unit just written, as supersession reads it."""

    id: UUID
    text: str
    event_date: datetime
    embedding: np.ndarray
    who: str = ""  # ``speaker_key(user_id, speaker)``


@dataclass(frozen=True, slots=True)
class Judged:
    """The rule's reading of one agent's new units: the pairs it decided, the pairs to ask an LLM,
    and what recording needs (the candidates already superseded, every text's event time)."""

    decided: list[Pair]
    ask: list[tuple[Fact, Fact]]
    ended: set[UUID]
    when: dict[UUID, datetime]
    written: dict[UUID, tuple[int, int]]  # write order: (0, seq) of a stored unit, (1, position) of a new one


def stated_by_agent(units: Sequence[WrittenUnit]) -> dict[str, list[StatedUnit]]:
    """The written units as supersession reads them, per agent (sorted by agent)."""
    by_agent: dict[str, list[StatedUnit]] = {}
    for unit in units:
        row = unit.row
        by_agent.setdefault(row.agent_id, []).append(
            StatedUnit(row.id, row.text, row.event_date, row.embedding, speaker_key(row.user_id, row.speaker)))
    return dict(sorted(by_agent.items()))


def supersede_put(conn: psycopg.Connection, episodes: Sequence[Episode], written: WrittenPut, nlp: NLP,
                  config: IngestConfig, now: datetime, *, rule: bool, cache: EmbeddingCache | None = None,
                  embedder: Embedder | None = None) -> int:
    """A put's supersession, inside its transaction: with ``rule`` (supersession on and no LLM
    judge, whose turn comes after the commit: ``judge_after_commit``), the offline rule on every
    agent's new units — ``read_candidates`` then ``record``, with the agent's unit count after the
    write and the agents' embeddings held between puts (``store.tables.supersession.similar_units``) —; then
    the corrections of ``update``: the first unit of an episode that ``corrects`` a unit
    supersedes it. Returns how many units were superseded."""
    made = 0
    for agent_id, stated in (stated_by_agent(written.units) if rule else {}).items():
        judged = read_candidates(conn, agent_id, stated, nlp, config, wide=False,
                                 size=written.unit_counts.get(agent_id), cache=cache, embedder=embedder)
        made += record(conn, agent_id, judged, now) if judged else 0
    first: dict[int, WrittenUnit] = {}
    for unit in written.units:
        first.setdefault(unit.episode_index, unit)
    for index, unit in sorted(first.items()):
        old = episodes[index].corrects
        if old is not None:
            made += sup_sql.supersede(conn, unit.row.agent_id, [(old, unit.row.id, "update")], now)
    return made


def judge_after_commit(db: Database, units: Sequence[WrittenUnit], nlp: NLP, llm: LLM, config: IngestConfig,
                       retries: int, clock: Clock, cache: EmbeddingCache | None = None,
                       embedder: Embedder | None = None) -> None:
    """Supersession judged by the LLM, after the put committed, so no transaction stays open while
    the model answers: per agent, the candidates and the rule in one short transaction, the call
    outside any, the result recorded in another. Supersession only refines stored units: when a
    step fails the units stay current and the failure is logged, never raised."""
    for agent_id, stated in stated_by_agent(units).items():
        try:
            with db.transaction() as conn:
                judged = read_candidates(conn, agent_id, stated, nlp, config, wide=True, cache=cache,
                                         embedder=embedder)
            if judged is None:
                continue
            judged = with_llm(judged, llm, retries)
            with db.transaction() as conn:
                record(conn, agent_id, judged, clock.now())
        except FleetMemoryError as exc:
            _log.warning("supersession of agent %r's new units was not recorded: %s", agent_id, exc)


def read_candidates(conn: psycopg.Connection, agent_id: str, new: Sequence[StatedUnit], nlp: NLP, config: IngestConfig,
          *, wide: bool, size: int | None = None, cache: EmbeddingCache | None = None,
          embedder: Embedder | None = None) -> Judged | None:
    """Candidates (cheap: only new units that state a slot, one search for them; unless ``wide`` — the
    LLM's net — only those that share a slot with the new unit and have another event time, the
    rule's first tests, which made the parse of every candidate most of the stage's time), one
    parse of the texts involved, and the rule. None when there is no candidate."""
    stating = [u for u in new if not is_question(u.text) and (wide or may_change(u.text))]
    if not stating:
        return None
    found = sup_sql.similar_units(conn, agent_id, [(u.id, u.embedding) for u in stating],
                               min_similarity=config.supersede_min_similarity, k=config.supersede_candidates,
                               size=size, cache=cache)
    said = {u.id: u for u in stating}
    if not wide:  # what the rule refuses before any parse (``judge``'s first tests): those pairs are not parsed
        found = [c for c in found if c.unit.event_date != said[c.new_id].event_date
                 and may_link(c.unit.text, said[c.new_id].text, _newer_text(c, said[c.new_id]))]
    if not found:
        return None
    texts: dict[UUID, tuple[str, datetime, str]] = {}
    for c in found:
        u = said[c.new_id]
        texts.setdefault(u.id, (u.text, u.event_date, u.who))
        texts.setdefault(c.unit.id, (c.unit.text, c.unit.event_date, speaker_key(c.unit.user_id, c.unit.speaker)))
    decided, ask = rule_pairs(_pairs(found, texts, nlp), embedder)
    written = {c.unit.id: (0, c.seq) for c in found}  # stored before this put's units, in seq order
    written.update((u.id, (1, i)) for i, u in enumerate(new))  # the put's own, in the order written
    return Judged(decided, ask, {c.unit.id for c in found if c.unit.valid_until is not None},
                  {i: t[1] for i, t in texts.items()}, written)


def _newer_text(candidate: sup_sql.SimilarUnit, new: StatedUnit) -> str:
    return new.text if new.event_date > candidate.unit.event_date else candidate.unit.text


def with_llm(judged: Judged, llm: LLM, retries: int) -> Judged:
    """``judged`` with the LLM's verdicts in place of the rule's for the pairs it answered (one call,
    made outside any transaction by the caller); when the judge fails (endpoint down, no valid
    answer after the retries) the rule decides alone and the put goes on (logged)."""
    ask = judged.ask
    if not ask:
        return judged
    try:
        verdicts = llm_verdicts(llm, ask, retries=retries)
    except ProviderError as exc:
        _log.warning("supersession: the LLM judge failed, the offline rule decides this put: %s", exc)
        return replace(judged, ask=[])
    answered = {(ask[i][0].id, ask[i][1].id) for i in verdicts}
    kept = [p for p in judged.decided if (p.older, p.newer) not in answered]
    judge = [Pair(ask[i][0].id, ask[i][1].id, f"llm:{v}") for i, v in sorted(verdicts.items()) if v != "unrelated"]
    return replace(judged, decided=kept + judge, ask=[])


def record(conn: psycopg.Connection, agent_id: str, judged: Judged, now: datetime) -> int:
    """Record the decided pairs: onto the current version of a line already superseded, each older
    unit ended by its earliest successor (of successors at the same time, the one written first:
    the turns of a session share their time, and breaking the tie by unit id made the same input
    end a fact by a different successor from one run to the next). Returns how many."""
    decided = _onto_current(conn, agent_id, judged.decided, judged.ended, judged.when)
    chosen: dict[UUID, Pair] = {}
    for p in sorted(decided, key=lambda p: (judged.when[p.newer], judged.written[p.newer])):
        chosen.setdefault(p.older, p)  # the earliest successor
    return sup_sql.supersede(conn, agent_id, [(p.older, p.newer, p.reason) for p in chosen.values()], now)


def _pairs(found: Sequence[sup_sql.SimilarUnit], texts: dict[UUID, tuple[str, datetime, str]],
           nlp: NLP) -> list[tuple[Fact, Fact]]:
    """(new, candidate) facts, each unordered pair once, every text parsed in one batch."""
    ids = list(texts)
    facts = {i: Fact(i, texts[i][0], texts[i][1], p, texts[i][2])
             for i, p in zip(ids, nlp.parse([texts[i][0] for i in ids]))}
    seen: set[frozenset[UUID]] = set()
    pairs = []
    for c in found:
        key = frozenset((c.new_id, c.unit.id))
        if key not in seen:
            seen.add(key)
            pairs.append((facts[c.new_id], facts[c.unit.id]))
    return pairs


def _onto_current(conn: psycopg.Connection, agent_id: str, decided: list[Pair], ended: set[UUID],
                  when: dict[UUID, datetime]) -> list[Pair]:
    """A pair whose older unit was superseded already supersedes the current version of that line
    instead (Harlow → notice, then "Started at the clinic" resembles Harlow more than the notice: it
    ends the notice), when that version is older than the new unit. One statement, only when needed."""
    stale = [p for p in decided if p.older in ended]
    if not stale:
        return decided
    heads = sup_sql.chains(conn, agent_id, sorted({p.older for p in stale}, key=str), _END_OF_TIME, bounded=False)
    out = [p for p in decided if p.older not in ended]
    for p in stale:
        head = heads.get(p.older)
        if head and head.current and head.current != p.newer and head.current_event_date < when[p.newer]:
            out.append(Pair(head.current, p.newer, p.reason))
    return out
