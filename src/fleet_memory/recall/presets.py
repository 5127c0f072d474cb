"""Recall settings as frozen data with named presets.

A search takes a preset by name (``"balanced"`` by default) or a ``RecallSettings`` value; to vary
one, build a new value with ``dataclasses.replace(get_preset("balanced"), max_hops=2)``. Nothing
ever mutates a shared preset: the dataclass is frozen and the registry hands out the same
immutable objects.

The numbers of ``BALANCED`` were tuned on three shapes of data at once — ``bench/locomo.py`` (LoCoMo
dev split, recall_any@10 on categories 1–4), ``bench/realuse.py`` (documentation, single-message
assistant memories, both mixed, LongMemEval-style sessions) — one change at a time, a change that
helped one and hurt another not taken. The walk's weight, the deviation floors, the frontier cap,
the time-window weight and the additive priors each went in that way; the walk takes one hop
because a second found nothing the first had not on any shape of data and cost about a third of a
search. The current figures are in docs/benchmarks.md; how each setting moved them, in the git
history of this file. ``DEEP`` walks three. The other presets trade quality for speed (``FAST``:
vector and full text, no entity or time channel) or show the plain vector baseline (``VECTOR``: one channel, no walk, score =
cosine similarity).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from types import MappingProxyType

from ..errors import InvalidInputError
from ..store.linking.links import EntityRule

_ENTITY = EntityRule()

__all__ = ["RecallSettings", "BALANCED", "FAST", "DEEP", "VECTOR", "PRESETS", "get_preset"]


@dataclass(frozen=True, slots=True)
class RecallSettings:
    """Every knob of one recall. See ``recall.search`` for how each one is used."""

    name: str = "balanced"
    # entry points: how many units each channel contributes (0 turns a channel off)
    vector_entry_k: int = 30
    fulltext_entry_k: int = 30
    entity_entry_k: int = 10
    time_entry_k: int = 10
    # spreading activation
    max_hops: int = 1
    decay: float = 0.8
    temporal_weight: float = 1.0
    semantic_weight: float = 1.0
    entity_weight: float = 1.0
    entity_fanout: int = _ENTITY.fanout
    entity_hub_min: int = _ENTITY.hub_min
    entity_hub_share: float = _ENTITY.hub_share
    entity_hub_max: int = _ENTITY.hub_max
    min_activation: float = 0.05
    max_frontier: int = 8
    # fusion of the query-dependent signals (z-scores over the entry pool)
    w_similarity: float = 1.0
    w_text: float = 1.0
    w_named: float = 0.3
    w_window: float = 3.0
    w_activation: float = 3.5
    similarity_std_floor: float = 0.05
    text_std_floor: float = 1.0
    # z(text) at most for a unit matching one common query term alone (IDF at most common_word_idf,
    # about 5 % of the agent's units) and far in meaning (scoring)
    single_term_text_cap: float = 1.0
    common_word_idf: float = 3.0
    # priors, added to relevance and bounded (scoring.py): recency and frequency (the memory
    # model), importance (the lifecycle; both in docs/concepts.md); together they move a score by
    # at most prior_span
    recency_rate: float = 0.1
    recency_weight: float = 0.2
    frequency_weight: float = 0.1
    importance_weight: float = 0.05
    # full text: a term found in at least min(common_term_units, max(common_term_min,
    # common_term_share × units)) units is common: it is not matched on (it would single out no
    # unit and cost a read of each), though it still counts in every candidate's text score
    common_term_units: int = 1_000
    common_term_min: int = 100
    common_term_share: float = 0.05
    # when False, the score is the cosine similarity alone (the plain vector baseline)
    fuse: bool = True
    # facts that change (recall.current): a superseded unit's term, −superseded_weight for questions
    # about the present, +past_superseded_weight for questions about the past
    superseded_weight: float = 1.0
    past_superseded_weight: float = 1.0
    # a question about the present whose two best answers, said by one speaker on different days,
    # are nearly as relevant (within newer_leads_margin, in standard deviations, or a cosine to the
    # question within newer_leads_cosine of the better one's) and close to each other (cosine at
    # least newer_leads_similarity, the put-time rule's own first test) gets the newer first
    # (recall.current.newer_leads); a margin of 0 turns it off, a cosine margin of 0 leaves the
    # relevance margin alone
    newer_leads_margin: float = 1.0
    newer_leads_cosine: float = 0.1
    newer_leads_similarity: float = 0.3
    # the closeness asked instead when the margins failed and the later message is tied to the question:
    # a new value of the kind asked, and the asked holder named (ingest.asked_holder)
    newer_leads_value_similarity: float = 0.2

    @property
    def entity_rule(self) -> EntityRule | None:
        """How the walk derives entity links (``store.linking.links``); None when entity links are off."""
        if self.entity_weight <= 0:
            return None
        return EntityRule(self.entity_fanout, self.entity_hub_min, self.entity_hub_share, self.entity_hub_max)

    @property
    def stored_kinds(self) -> tuple[str, ...]:
        """The stored link kinds the walk follows (those with a weight above 0)."""
        return tuple(k for k in ("temporal", "semantic") if self.link_weight(k) > 0)

    def link_weight(self, kind: str) -> float:
        if kind == "temporal":
            return self.temporal_weight
        if kind == "semantic":
            return self.semantic_weight
        return self.entity_weight


BALANCED = RecallSettings()
FAST = replace(BALANCED, name="fast", entity_entry_k=0, time_entry_k=0, max_hops=1, vector_entry_k=20,
               fulltext_entry_k=20)
DEEP = replace(BALANCED, name="deep", max_hops=3, vector_entry_k=50, fulltext_entry_k=50, entity_entry_k=20)
VECTOR = replace(BALANCED, name="vector", fulltext_entry_k=0, entity_entry_k=0, time_entry_k=0, max_hops=0,
                 fuse=False)

PRESETS = MappingProxyType({p.name: p for p in (BALANCED, FAST, DEEP, VECTOR)})


def get_preset(preset: object) -> RecallSettings:
    """A preset by name, or the given ``RecallSettings`` itself (checked)."""
    if preset is None:
        return BALANCED
    if isinstance(preset, RecallSettings):
        _check(preset)
        return preset
    if isinstance(preset, str) and preset in PRESETS:
        return PRESETS[preset]
    raise InvalidInputError("preset", f"unknown preset {preset!r}", "one of " + ", ".join(PRESETS))


def _check(s: RecallSettings) -> None:
    for field in ("vector_entry_k", "fulltext_entry_k", "entity_entry_k", "time_entry_k", "max_hops", "entity_fanout",
                  "common_term_units", "common_term_min", "entity_hub_min", "entity_hub_max", "max_frontier"):
        value = getattr(s, field)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0 or value > 10_000:
            raise InvalidInputError(f"preset.{field}", f"is {value!r}", "an integer from 0 to 10,000")
    for field in ("entity_hub_share", "common_term_share"):
        value = getattr(s, field)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= value <= 1.0:
            raise InvalidInputError(f"preset.{field}", f"is {value!r}", "a share from 0 to 1")
    if not 0.0 <= s.newer_leads_margin <= 100.0:
        raise InvalidInputError("preset.newer_leads_margin", f"is {s.newer_leads_margin!r}", "from 0 to 100")
    if not 0.0 <= s.newer_leads_cosine <= 2.0:
        raise InvalidInputError("preset.newer_leads_cosine", f"is {s.newer_leads_cosine!r}", "from 0 to 2")
    for field in ("newer_leads_similarity", "newer_leads_value_similarity"):
        if not -1.0 <= getattr(s, field) <= 1.0:
            raise InvalidInputError(f"preset.{field}", f"is {getattr(s, field)!r}", "from -1 to 1")
    if not 0.0 < s.decay <= 1.0:
        raise InvalidInputError("preset.decay", f"is {s.decay!r}", "0 < decay <= 1")
    if s.vector_entry_k + s.fulltext_entry_k + s.entity_entry_k + s.time_entry_k == 0:
        raise InvalidInputError("preset", "every entry channel is turned off", "at least one entry_k above 0")
