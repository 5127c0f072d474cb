"""The real-use scenario (bench/data/realuse.toml) keeps the shape its benchmark promises, its
paragraph rules do what they say, and its scoring counts hits and current-wins as documented.
No database and no models: the documentation texts are read from the installed packages."""

from __future__ import annotations

import sys
from datetime import datetime
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "bench"))

import realuse  # noqa: E402
import realuse_scenario as rs  # noqa: E402

KINDS = {"docs-fact", "single-fact", "pronoun", "subjectless", "short-beside-long", "changed-current",
         "past-state", "time-window", "user-said", "assistant-said", "lme-update", "multi-session"}


@pytest.fixture(scope="module")
def scenario() -> rs.Scenario:
    return rs.load(with_docs=False)


def test_questions_have_golds_and_every_kind(scenario):
    questions = scenario.questions
    assert len(questions) >= 120
    assert len({q.id for q in questions}) == len(questions)
    assert {q.source for q in questions} == set(rs.SOURCES)
    assert {q.kind for q in questions} == KINDS
    for q in questions:
        assert q.text.strip() and q.gold and all(g.strip() for g in q.gold), q.id
        assert all(s.strip() for s in q.stale), q.id


def test_at_least_ten_facts_change(scenario):
    changed = [q for q in scenario.questions if q.source == "assistant" and q.stale]
    assert len(changed) >= 10
    for q in changed:  # the current value is not hidden inside the stale one, nor the reverse
        assert not any(rs.normalise(g) in rs.normalise(s) or rs.normalise(s) in rs.normalise(g)
                       for g in q.gold for s in q.stale), q.id


def test_assistant_sessions_span_a_year_one_message_per_put(scenario):
    raw_sessions = scenario.raw["sessions"]
    puts = scenario.puts_of("assistant")
    assert len(raw_sessions) >= 8
    assert len(puts) == sum(len(s["messages"]) for s in raw_sessions)
    span = max(p.event_date for p in puts) - min(p.event_date for p in puts)
    assert span.days >= 300
    assert all(p.event_date < scenario.now for p in puts)
    text = " ".join(p.text for p in puts)
    for name in ("Ines", "Tomasz", "Oluwaseun", "Siobhan", "Carol"):
        assert name in text


def test_lme_sessions_have_long_assistant_turns(scenario):
    turns = scenario.puts_of("lme")
    assert {p.speaker for p in turns} == {"user", "assistant"}
    assert len({p.session for p in turns}) >= 5
    assert min(len(p.text) for p in turns if p.speaker == "assistant") >= 400


def test_golds_of_written_sources_are_in_the_puts(scenario):
    assert rs.missing_golds(scenario) == []


def test_docs_are_read_from_installed_packages_and_hold_their_golds():
    full = rs.load()
    docs = full.puts_of("docs")
    assert len({p.origin.split("/")[0] for p in docs}) >= 6
    assert all(p.event_date < full.now for p in docs)
    assert rs.missing_golds(full) == []


def test_a_missing_gold_stops_the_bench(scenario):
    broken = rs.Scenario(scenario.now, scenario.puts, (rs.Question(
        "assistant-99", "assistant", "single-fact", "?", ("no such words anywhere",), (), scenario.now),), {})
    with pytest.raises(SystemExit, match="assistant-99"):
        rs.check(broken)


def test_paragraph_rules_drop_code_badges_and_short_blocks():
    text = ("# Title\n\n[![CI](https://x/badge.svg)](https://x)\n\n"
            "This first paragraph explains what the package does, in prose.\n\n"
            "```python\nimport thing\n\nthing.run()\n```\n\n"
            "    indented_code_block()\n\nShort line.\n\n"
            "Heading\n=======\n\nA second paragraph that is long enough to be kept as one.\n")
    assert rs.paragraphs(text) == ["This first paragraph explains what the package does, in prose.",
                                   "A second paragraph that is long enough to be kept as one."]
    assert rs.paragraphs(text, max_paragraphs=1) == ["This first paragraph explains what the package does, in prose."]


def test_matching_ignores_case_whitespace_and_typographic_quotes():
    assert rs.normalise("Ines\u2019s  flat\nhas a View") == "ines's flat has a view"
    q = rs.Question("x", "assistant", "changed-current", "?", ("in Porto now",), ("lives in Lisbon",),
                    datetime(2025, 1, 1))
    assert realuse.score(["Ines lives in Lisbon.", "She lives in PORTO now."], q) == {
        "hit@1": 0.0, "hit@5": 1.0, "mrr@10": 0.5, "current_wins": 0.0}
    assert realuse.score(["She lives in Porto now."], q)["current_wins"] == 1.0
    assert realuse.score(["Ines lives in Lisbon."], q)["current_wins"] == 0.0


def test_reciprocal_rank_fusion_prefers_units_both_lists_rank_high():
    assert realuse.fuse(["a", "b", "c"], ["b", "d", "a"]) == ["b", "a", "d", "c"]
