"""``current.newer_leads``: of a present question's two best answers, the later one of the same
speaker leads when it is nearly as relevant (in relevance, or in cosine to the question), or when
the caller's ``same_fact`` says it states the same holder's later value."""

from __future__ import annotations

from datetime import datetime, timezone
from types import SimpleNamespace
from uuid import uuid4

from fleet_memory.model import MemoryType, MemoryUnit
from fleet_memory.recall.current import DEMOTION_MARGIN, NEWER_BY, Said, newer_leads
from fleet_memory.recall.presets import get_preset
from fleet_memory.recall.scoring import Scored
from fleet_memory.recall.search import Ranked, _newer_first
from fleet_memory.store.reads import candidates as cand_sql
from fleet_memory.store.reads.candidates import Candidate

MAY = datetime(2025, 5, 1, tzinfo=timezone.utc)
JUNE = datetime(2025, 6, 1, tzinfo=timezone.utc)


def test_the_later_statement_of_one_speaker_leads_when_nearly_as_relevant():
    old, new = Said(6.0, 5.5, MAY, "Ana"), Said(4.9, 4.0, JUNE, "Ana")
    assert newer_leads(old, new, margin=2.0) == 4.9 - DEMOTION_MARGIN


def test_nothing_moves_otherwise():
    old = Said(6.0, 5.5, MAY, "Ana")
    assert newer_leads(old, Said(3.0, 3.0, JUNE, "Ana"), margin=2.0) is None  # far less relevant
    assert newer_leads(old, Said(5.0, 5.0, JUNE, "Ben"), margin=2.0) is None  # another speaker
    assert newer_leads(old, Said(5.0, 5.0, MAY, "Ana"), margin=2.0) is None  # not later
    assert newer_leads(old, Said(5.0, 5.0, MAY + NEWER_BY / 2, "Ana"), margin=2.0) is None  # the same sitting
    assert newer_leads(Said(6.0, 5.5, JUNE, None), Said(5.0, 5.0, MAY, None), margin=2.0) is None  # the best is newer
    assert newer_leads(old, Said(5.0, 5.0, JUNE, "Ana"), margin=0.0) is None  # turned off


def test_a_cosine_margin_beside_the_relevance_margin():
    # far apart in relevance (a small pool's z-scale, a repeated noun), close in cosine
    old, new = Said(6.0, 5.4, MAY, "Ana", 0.80), Said(3.5, 3.5, JUNE, "Ana", 0.71)
    assert newer_leads(old, new, margin=1.0) is None
    assert newer_leads(old, new, margin=1.0, cosine_margin=0.1) == 3.5 - DEMOTION_MARGIN
    assert newer_leads(old, new._replace(similarity=0.60), margin=1.0, cosine_margin=0.1) is None
    assert newer_leads(old, new._replace(speaker="Ben"), margin=1.0, cosine_margin=0.1) is None
    assert newer_leads(old, new, margin=0.0, cosine_margin=0.1) is None  # turned off


def test_the_same_fact_leads_however_much_less_relevant_and_is_asked_only_then():
    old, far = Said(6.0, 5.5, MAY, "Ana", 0.8), Said(2.0, 1.0, JUNE, "Ana", 0.5)
    asked: list[bool] = []

    def same(answer: bool):
        return lambda: asked.append(answer) or answer

    assert newer_leads(old, far, margin=1.0, cosine_margin=0.1, same_fact=same(True)) == 2.0 - DEMOTION_MARGIN
    assert newer_leads(old, far, margin=1.0, cosine_margin=0.1, same_fact=same(False)) is None
    assert asked == [True, False]
    near = Said(5.9, 5.0, JUNE, "Ana", 0.8)
    assert newer_leads(old, near, margin=1.0, same_fact=same(False)) == 5.9 - DEMOTION_MARGIN  # close: not asked
    assert newer_leads(old, far._replace(speaker="Ben"), margin=1.0, same_fact=same(True)) is None
    assert newer_leads(old, far._replace(event_date=MAY), margin=1.0, same_fact=same(True)) is None
    assert newer_leads(old, far, margin=0.0, same_fact=same(True)) is None  # turned off
    assert newer_leads(old, near, margin=1.0, same_fact=same(False), margins=False) is None  # close, but asked
    assert newer_leads(old, near, margin=1.0, same_fact=same(True), margins=False) == 5.9 - DEMOTION_MARGIN
    assert asked == [True, False, False, True]


def _ranked(seq: int, text: str, day: datetime, relevance: float, similarity: float, document=None) -> Ranked:
    unit = MemoryUnit(id=uuid4(), agent_id="a", text=text, memory_type=MemoryType.EPISODIC, event_date=day,
                      created_at=day, importance=0.5, document_id=document or uuid4())
    return Ranked(seq, Candidate(unit, similarity=similarity, text_score=0.0, named=False, seq=seq),
                  Scored(relevance, {"relevance": relevance, "score": relevance}))


def test_a_later_value_the_question_is_not_about_never_leads():
    # far behind in relevance and below the pool's median: the holder test is not even asked
    request = SimpleNamespace(query="What noise is the washing machine making?", agent_id="a", top_k=10,
                              settings=get_preset("balanced"))
    first = _ranked(0, "Our letting agent is Dexters.", MAY, 4.0, 0.8)
    second = _ranked(1, "It's Hamptons now.", JUNE, -1.0, 0.5)
    asked: list[str] = []

    def same_fact(question, older, newer, marked):
        asked.append(newer[0].text)
        return older[0], newer[0], False

    pool = [first, second, _ranked(2, "Pasta tonight?", MAY, 0.5, 0.1)]  # median relevance 0.5
    assert _newer_first(None, request, [first], second, JUNE, same_fact, pool) == [first, second]
    assert asked == []
    low = [first, second, _ranked(2, "Pasta tonight?", MAY, -3.0, 0.1)]  # median -1.0: asked, and it says no
    assert _newer_first(None, request, [first], second, JUNE, lambda *a: asked.append("x"), low) \
        == [first, second]
    assert asked == ["x"]


def test_close_answers_whose_best_units_stand_apart_are_compared_by_their_statements(monkeypatch):
    # the margins choose the two messages; their best units (a request, a statement) are not close,
    # the older message's statement and the newer one are
    request = SimpleNamespace(query="Where do I live?", agent_id="a", top_k=10, settings=get_preset("balanced"))
    asked = _ranked(0, "Can you plan me some walks from where I live?", MAY, 4.0, 0.5)
    stated = _ranked(2, "I'm in Roundhay in Leeds.", MAY, 1.0, 0.3, asked.candidate.unit.document_id)  # one message
    moved = _ranked(1, "We've just moved to Exeter.", JUNE, 3.6, 0.45)
    close = {frozenset((asked.candidate.unit.id, moved.candidate.unit.id)): 0.1,
             frozenset((stated.candidate.unit.id, moved.candidate.unit.id)): 0.5}
    monkeypatch.setattr(cand_sql, "pair_similarity", lambda conn, agent, a, b: close[frozenset((a, b))])
    pool = [asked, moved, stated, _ranked(3, "Pasta tonight?", MAY, -2.0, 0.1)]
    assert _newer_first(None, request, [asked], moved, JUNE, None, pool) == [asked, moved]  # the margins alone
    told = []

    def same_fact(question, older, newer, marked):
        told.append([u.text for u in older])
        return older[1], newer[0], False

    assert _newer_first(None, request, [asked], moved, JUNE, same_fact, pool)[0] is moved
    assert told == [[asked.candidate.unit.text, stated.candidate.unit.text]]


def test_a_later_message_tied_to_the_question_needs_less_closeness(monkeypatch):
    # statements 0.25 apart: enough when the holder test found the later message tied to the question
    # (a new value of the kind asked, the asked holder named), not when it only read the holder
    settings = get_preset("balanced")
    older = _ranked(0, "I work at Deloitte in their audit practice.", MAY, 4.0, 0.5)
    newer = _ranked(1, "First proper week at Monzo done.", JUNE, 1.0, 0.3)
    monkeypatch.setattr(cand_sql, "pair_similarity", lambda conn, agent, a, b: 0.25)
    pool = [older, newer, _ranked(2, "Pasta tonight?", MAY, -2.0, 0.1)]

    def search(tied: bool):
        request = SimpleNamespace(query="Which company do I work for?", agent_id="a", top_k=10, settings=settings)
        return _newer_first(None, request, [older], newer, JUNE, lambda q, o, n, m: (o[0], n[0], tied), pool)[0]

    assert settings.newer_leads_similarity > 0.25 >= settings.newer_leads_value_similarity
    assert search(True) is newer
    assert search(False) is older
