"""What is current: how recall treats units that a newer unit superseded (``ingest.supersede``).

A unit is **superseded at** time ``t`` when its ``valid_until`` (the successor's event time) is at
or before ``t``; ``t`` is the request's ``as_of`` when given, else its ``now``. Three ways to use it:

- ``search(..., as_of=t)``: a filter (``store.tables.filters``) keeps only units current at ``t`` — stated
  by then (``event_date <= t``) and not yet superseded (``valid_until`` null or after ``t``) — so the
  answer is what was true then; nothing is penalised.
- ``include_superseded=False``: a filter hides units superseded by ``now``.
- Otherwise (the default) superseded units stay in the ranking with one bounded additive term,
  ``supersession_term``, shown as a factor by ``explain``:

      −superseded_weight        for a question about the present (the default reading)
      +past_superseded_weight   for a question about the past (``asks_about_past``)

  (both 1.0 in the presets; on ``bench/realuse.py`` a past bonus of 0.5 left "What date was
  Marta's wedding first planned for?" at rank 6, 1.0 brings it to rank 5)

  With ``superseded_weight`` = 1.0 (one standard deviation of query similarity on the z-scale of
  ``scoring``) a stale unit loses to a nearly as relevant unit; the past bonus (1.0) lifts old
  values for "before" / "used to" / "in 2024" questions without overturning a clear relevance
  margin. Neither applies in the ``vector`` preset (``fuse=False``: cosine alone).

  And, for questions about the present, **the current version takes the stale one's place**.
  The old sentence often matches the question's words better than its successor ("Where does Ines
  live?" / "Ines lives in Lisbon." against "Ines moved to Porto."; "Where do I work?" / "Work is
  busy: I'm a data analyst at Harlow Logistics." against "Started at the new clinic today as a
  senior analyst.", which shares no word with the question), so a stale unit that was reached is
  evidence that the current value of the same fact answers the question. Each reached superseded
  unit leads to the current end of its line of successors (``store.tables.supersession.chains``:
  Harlow → notice → clinic gives the clinic; a successor the walk did not reach is read in one
  more statement, when it passes the request's filters, and scored on its own features with no
  activation — shown as reached over a ``supersedes`` link):

  1. ``promote_successors``: the current unit scores at least what the stale unit scored (factor
     ``promotion``);
  2. ``demote_below_successors``: the stale unit is placed ``DEMOTION_MARGIN`` below it however
     much more relevant it looked (factor ``demotion``).

  So a stale unit's rank goes to the current value and the stale one follows right after it: the
  top ``k`` gains at most one unit per stale unit in it, and nothing else moves up. Without a
  current end (every successor superseded too by ``as_of``), nothing is promoted.

  **A link is not trusted blindly** (``trusted_links``). Both moves follow a link only when the
  current version is itself relevant to the question: its own query relevance (``direct`` in
  ``scoring``: similarity, full text, names, window — not the activation it would inherit) is at
  least the median over the units ranked, and at least ``ABOVE_MEDIAN`` (0.3 standard deviations
  of similarity) above the median of the units on no link (the pool's background:
  in an agent of three units — the old value, the new one and some chatter — the new one *is*
  the median of all three). Otherwise the stale unit keeps its own score with its
  ``−superseded_weight`` (it is only demoted) and the current version ranks on its own merits.
  So a unit the question is not about, less relevant than the pool's median, never reaches rank
  1 by a link: the user's move recorded as the successor of a sister's residence and of her job
  stands 0.19 and 0.09 above the background for those questions and stays off rank 1
  (tests/integration/facts/test_wrong_link.py). Why not a margin below the stale unit's
  relevance: a true successor often shares far fewer words with the question than the stale
  sentence and stands far below it — 9.3 below for "Project Heron has been renamed Project
  Kestrel" against "Our project at work is called Project Heron, it's the new route
  optimisation dashboard" ("What is the route optimisation dashboard project called?",
  ``bench/realuse.py``), 3.7 below for "Started at the new clinic today as a senior analyst."
  against "Work is busy: I'm a data analyst at Harlow Logistics." ("Where do I work?"); a
  margin of 1.5 took current-wins on ``bench/realuse.py`` from 1.0 to .53. The bar is thin: the
  clinic stands 0.69 above its background in that test and 0.35 in ``bench/realuse.py``'s mixed
  agent (0.5 lost it there), the wrongly linked move 0.19 and 0.09 above its own; and relevance
  cannot tell at all the same move, wrongly linked after the user's job, 0.85 above its
  background for "Where do I work?" — a wrong link to a unit that relevant is the put-time rule's
  precision to prevent.

And **without a link** (``newer_leads``): of the two best answers to a question about the present
(the units of one put are one answer), the later one leads when one speaker said both on different
days, the two are close to each other, and it is nearly as relevant or states the asked holder's
later value (``ingest.asked_holder``: no other holder in its subject, no cue of an addition, a visit
or a question, and — unless the question says "now" — a value of the kind asked).

Past cues (word boundaries, case-insensitive; ``query.PAST_WORDS`` and more): before, used to,
previously, originally, formerly, former, previous, old (not "how old"), earlier, at first, first
(planned|booked|set|called), supposed to, back then, ago, last (year|summer|…), was/were/did/had
as the question's verb, and a year or month named with "in".
A question naming a time window that ended before ``now`` is about the past too — unless it says
it asks about the present: still, now, currently, these days, at the moment, nowadays, any more /
anymore ("Am I still going to Kyoto in April?" asked in June asks whether the plan stands, not
what it was in April). A past cue in the words wins over a present one ("What was my number
before I changed it, and is it still active?" asks for the old value).
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Callable, Hashable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import NamedTuple, TypeVar

from ..model import MemoryUnit, TimeWindow
from .query import PAST_WORDS, PRESENT_WORDS

__all__ = ["asks_about_past", "is_superseded", "supersession_term", "trusted_links", "promote_successors",
           "demote_below_successors", "newer_leads", "marks_present", "Said", "SameFact", "DEMOTION_MARGIN",
           "NEWER_BY", "ABOVE_MEDIAN"]

DEMOTION_MARGIN = 0.05
ABOVE_MEDIAN = 0.3
NEWER_BY = timedelta(days=1)

K = TypeVar("K", bound=Hashable)

_PAST = re.compile(
    rf"\b({PAST_WORDS}|supposed to"
    r"|first (planned|booked|set|called|scheduled)|last (year|summer|winter|spring|autumn|fall|month|week)"
    r"|in (19|20)\d\d)\b"
    r"|^\s*(\w+\s+){0,3}(was|were|did|had)\b",
    re.IGNORECASE,
)


_PRESENT = re.compile(rf"\b({PRESENT_WORDS})\b", re.IGNORECASE)


def asks_about_past(query: str, window: TimeWindow | None, now: datetime) -> bool:
    """Does the question ask what was true before (rather than what is true now)?"""
    if _PAST.search(query) is not None:
        return True
    return window is not None and window.end <= now and _PRESENT.search(query) is None


def marks_present(query: str) -> bool:
    """Does the question say it asks about the present ("now", "currently", "these days", "still")?"""
    return _PRESENT.search(query) is not None


def is_superseded(valid_until: datetime | None, at: datetime) -> bool:
    return valid_until is not None and valid_until <= at


def supersession_term(superseded: bool, past: bool, superseded_weight: float, past_weight: float) -> float:
    if not superseded:
        return 0.0
    return past_weight if past else -superseded_weight


def trusted_links(relevance: Mapping[K, float], current: Mapping[K, K],
                  above: float = ABOVE_MEDIAN) -> dict[K, K]:
    """The links of ``current`` (stale → current) recall may follow: those whose current unit's own
    ``relevance`` is at least the median over ``relevance`` (the units ranked) and stands at least
    ``above`` above the median of the units on no link of ``current`` (when there are any). Units
    missing from ``relevance`` are not trusted."""
    if not relevance:
        return {}
    linked = set(current) | set(current.values())
    others = [v for k, v in relevance.items() if k not in linked]
    bar = max(statistics.median(relevance.values()), statistics.median(others) + above if others else float("-inf"))
    return {old: new for old, new in current.items() if old in relevance and new in relevance
            and relevance[new] >= bar}


def promote_successors(scores: Mapping[K, float], current: Mapping[K, K]) -> dict[K, float]:
    """New scores for the current units of ``current`` (stale → current) that score below a stale
    unit they replaced: the best such stale score. Units missing from ``scores`` promote nothing."""
    moved: dict[K, float] = {}
    for old, new in current.items():
        if old in scores and new in scores:
            best = max(moved.get(new, scores[new]), scores[old])
            if best > scores[new]:
                moved[new] = best
    return moved


def demote_below_successors(scores: Mapping[K, float], successors: Mapping[K, K]) -> dict[K, float]:
    """New scores for the units of ``successors`` (old → new) that would rank above their successor:
    the successor's score − ``DEMOTION_MARGIN``. Successors missing from ``scores`` demote nothing."""
    current = dict(scores)
    moved: dict[K, float] = {}
    for _ in range(len(successors)):
        changed = False
        for old, new in successors.items():
            if old in current and new in current and current[old] > current[new] - DEMOTION_MARGIN:
                current[old] = current[new] - DEMOTION_MARGIN
                moved[old] = current[old]
                changed = True
        if not changed:
            break
    return moved


SameFact = Callable[[str, Sequence[MemoryUnit], Sequence[MemoryUnit], bool],
                   tuple[MemoryUnit, MemoryUnit, bool] | None]
"""``(question, older, newer, marked_present)`` → the two statements, one of each answer, that give
one holder's value of what the question asks, the newer a later one, and whether the later message
ties itself to the question (a new value of the kind asked, and the asked holder named); else None. An answer is the
units of one put, best ranked first (a message's best unit for a question is often its question:
"What side effects should I look out for?" after "The doctor switched me to citalopram"; the
statement beside it is what is compared). ``marked_present``: the question says "now", "these
days"… (``marks_present``). (``newer_leads``; the facade gives ``ingest.asked_holder.LaterValue``.)"""


class Said(NamedTuple):
    """What ``newer_leads`` reads of a ranked unit."""

    score: float
    relevance: float
    event_date: datetime
    speaker: str | None
    similarity: float = 0.0  # cosine to the question


def newer_leads(first: Said, second: Said, margin: float, cosine_margin: float = 0.0,
                same_fact: Callable[[], bool] | None = None, margins: bool = True) -> float | None:
    """For a question about the present: the score that puts ``first`` (the best answer) just below
    ``second`` (the next), when ``second`` was said by the same speaker at least ``NEWER_BY`` later
    and is nearly as relevant — its relevance within ``margin`` of ``first``'s, or its cosine to
    the question within ``cosine_margin`` of ``first``'s — or, however much less relevant, when
    ``same_fact()`` says the two state one holder's value of what the question asks (asked only
    then; the facade's is ``ingest.asked_holder.LaterValue``; the caller does not offer it for a
    ``second`` less relevant than the median answer ranked); else None. (The caller also asks
    that the two be close to each other: ``RecallSettings.newer_leads_similarity``.) With
    ``margins=False`` only ``same_fact`` can say so (the caller's second try, when the pair the
    margins chose was not close).

    Why relevance need not be close when the holder is the same: the older statement is often the
    one that repeats the question's words, and stands far ahead — "Which bank is my everyday
    account with?" finds "My everyday account is with Commonwealth Bank in Sydney" well before
    "ING pays my salary in and there are no account fees at all" (6.4 standard deviations of
    relevance, 0.23 of cosine) — so the margins alone left the stale value first for most changes
    told in other words. Both were reached for the question and are close to each other; what can
    still make the newer one wrong is another holder ("My brother Dan lives in Peckham" for "Where
    do I live?") or a statement that is no change (a question, an addition, a visit), and those are
    what ``same_fact`` reads.

    The link-free half of facts that change: most changes are never linked at put time (the rule
    links only what it is sure of), and then the older statement often matches the question's words
    better ("We're still in the flat on Mill Road" against "we finally moved into the house in
    Didsbury", for "Where do I live these days?"). When the two best answers of a present question
    are close, both answer it, and the later one is the better bet for what holds now. Only the two
    best answers are compared (the caller counts a put's units as one answer: "I'm a nurse at St
    Mary's Hospital. The night shifts at St Mary's Hospital are long …" is one answer in two units,
    both above the later message), and only one speaker's statements told on different days: what two people
    said is not one fact, and two passages of one document put in one sitting are not a change.
    Counter-example the similarity test keeps out: "What's my diet at the moment?" — "I've gone fully
    vegan" and, later, "got strawberries and a sourdough loaf at the market" (relevant, close in
    relevance, but not about the same thing: cosine 0.26).

    Why a cosine margin beside the relevance margin. Relevance is on the z-scale of the units
    ranked (``scoring``) and adds the entry point's activation, so it magnifies the older
    statement's lead where the pool is small — an agent of four units — or where the older repeats
    the question's noun: "Which school is Jonah at now?" finds "My nephew Jonah is a pupil at
    Kingsmead School." at cosine 0.80 and "Jonah transferred to Riverside Academy in September." at
    0.71, 4.7 apart in relevance (1.2 in the direct score: mostly the word "school"). Cosine is on
    one scale in every agent. What it costs where two close statements are not a change: on
    ``bench/realuse.py`` "When does my passport expire?" now finds "Passport renewal sent off,
    should take three weeks." before "Need to renew my passport …, it expires in September."
    (figures: ``docs/benchmarks.md``)."""
    if margin <= 0 or second.event_date - first.event_date < NEWER_BY or second.speaker != first.speaker:
        return None
    close = margins and first.relevance - second.relevance <= margin
    if not close and (cosine_margin <= 0 or first.similarity - second.similarity > cosine_margin) \
            and (same_fact is None or not same_fact()):
        return None
    return second.score - DEMOTION_MARGIN
