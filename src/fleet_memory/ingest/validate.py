"""Validation: a unit needs a subject and a verb (dependency parse). Fragments are never stored
on their own: a fragment is merged into the previous valid fact of the same episode, or, when it
comes first, into the next one. An episode with no valid fact keeps its fragments as one
``subjectless`` unit when they hold three words or more (a chat line such as "Started at the new
clinic today." or "Off to a friend's birthday dinner."; assembly names the implied subject). Facts from an LLM
(``self_contained``) count as valid. Runs after coreference, which reads every fact (fragments
too), so that a plan holds the facts with their final texts. O(tokens).

A unit takes at most ``MAX_FRAGMENTS`` fragments (the nearest ones: those before it that follow
the previous unit's share, those after it up to the next valid fact); the rest are left out of
every unit (the document keeps them). Real text attaches a few ("Wow." before "I went to the
park."); a text of nothing but verbless capitalised fragments once made units of 13,000
characters, each naming hundreds of entities, for a put of a megabyte to resolve them all.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..providers.nlp import Parsed
from .records import CorefFact, UnitPlan

__all__ = ["MAX_FRAGMENTS", "UnitPlanner", "is_complete", "plan_units"]

MAX_FRAGMENTS = 12

_SUBJECT_DEPS = {"nsubj", "nsubjpass", "csubj", "csubjpass", "expl"}
_VERB_POS = {"VERB", "AUX"}
_FINITE = {"VBZ", "VBD", "VBP"}
_NOMINAL_POS = {"NOUN", "PROPN", "PRON"}


def is_complete(parse: Parsed) -> bool:
    """True when the sentence has a subject and a verb.

    The small English model's dependency labels are often wrong on short factual sentences, so a
    subject and a verb are also recognised from the part-of-speech tags alone:
    - an imperative: the root is a base-form verb (VB) with no subject ("Always run the
      migrations first.", "Clear the build cache when tests fail.") — the subject is the reader;
    - a finite verb (VBZ, VBD, VBP) after a noun or pronoun, whatever the parse made of them ("The
      harbour crane lifts containers" parsed as one compound noun phrase);
    - "Name verbs …" tagged as a compound noun phrase ("Bob climbs in Yosemite": Bob/compound,
      climbs/NNS/ROOT): a proper noun opening the sentence as the compound of a plural-noun root,
      with more words after it.
    """
    tokens = parse.tokens
    has_subject = any(t.dep in _SUBJECT_DEPS for t in tokens)
    has_verb = any(t.pos in _VERB_POS for t in tokens)
    if has_subject and has_verb:
        return True
    root = next((t for t in tokens if t.dep == "ROOT"), None)
    if root is None:
        return False
    if not has_subject and root.pos == "VERB" and root.tag == "VB":
        return True
    seen_nominal = False
    for token in tokens:
        if token.pos in _VERB_POS and token.tag in _FINITE and seen_nominal:
            return True
        seen_nominal = seen_nominal or token.pos in _NOMINAL_POS
    root_index = tokens.index(root)
    return (
        root.tag == "NNS" and root_index == 1 and tokens[0].pos == "PROPN" and tokens[0].dep == "compound"
        and len(tokens) - root_index > 2
    )


def _keepable(items: Sequence[CorefFact]) -> bool:
    """Fragments worth a unit of their own: three words or more in all."""
    return sum(1 for item in items for t in item.parse.tokens if t.text[:1].isalnum()) >= 3


def plan_units(facts: Sequence[CorefFact]) -> list[UnitPlan]:
    """Group the facts into units, in order."""
    planner = UnitPlanner()
    return planner.add(facts) + planner.finish()


class UnitPlanner:
    """``plan_units`` over facts that come a window at a time, an episode possibly cut between two
    windows (``ingest.windows``): ``add`` answers the plans that are final — the last plan of the
    last episode may still take fragments from the next window, so it waits —, ``finish`` the rest.
    The plans are those of one ``plan_units`` over all the facts."""

    def __init__(self) -> None:
        self._pending: list[CorefFact] = []  # fragments waiting for the next valid fact of the episode
        self._episode: int | None = None
        self._open: list[CorefFact] | None = None  # the last plan of the current episode

    def add(self, facts: Sequence[CorefFact]) -> list[UnitPlan]:
        plans: list[UnitPlan | list[CorefFact]] = []
        for item in facts:
            episode = item.fact.episode_index
            if episode != self._episode:
                plans.extend(self._close_episode())
                self._episode, self._open, self._pending = episode, None, []
            valid = item.fact.self_contained or is_complete(item.parse)
            if item.fact.kind == "code":  # a kept code block is a unit of its own, never merged
                plans.extend(self._close_open())
                plans.append([item])
                self._pending = []
            elif valid:
                plans.extend(self._close_open())
                self._open, self._pending = self._pending[-MAX_FRAGMENTS:] + [item], []
            elif self._open is not None:
                if len(self._open) <= MAX_FRAGMENTS:  # the valid fact and its fragments so far
                    self._open.append(item)
            else:
                self._pending.append(item)
        return [p if isinstance(p, UnitPlan) else UnitPlan(tuple(p)) for p in plans]

    def finish(self) -> list[UnitPlan]:
        plans = self._close_episode()
        self._episode, self._open, self._pending = None, None, []
        return [p if isinstance(p, UnitPlan) else UnitPlan(tuple(p)) for p in plans]

    def _close_open(self) -> list[list[CorefFact]]:
        """The open plan, final now that a later unit starts (the code block's: none stays open)."""
        closed, self._open = ([self._open] if self._open is not None else []), None
        return closed

    def _close_episode(self) -> list[UnitPlan | list[CorefFact]]:
        if self._open is not None:
            return self._close_open()
        if self._pending and _keepable(self._pending):
            return [UnitPlan(tuple(self._pending[:MAX_FRAGMENTS]), subjectless=True)]
        return []
