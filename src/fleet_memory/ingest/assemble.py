"""Assembling one unit from its plan: the unit's text is its facts' texts after coreference,
joined by a space; it mentions the episode's speaker (a PERSON), then, fact by fact, the entity
spans, the coreference referents and the names an LLM extractor gave, each normalised name once
(first surface form kept) — except inline code of structured text (``literals``), which is never a
name. Metadata (type, importance, speaker, category, heading path, kind) come from the first fact;
links are those of all its facts. Pure; O(facts + mentions).
"""

from __future__ import annotations

from ..naming import normalize_name
from .ner import clean_name
from .records import EntityMention, UnitDraft, UnitPlan

__all__ = ["draft_unit"]


def draft_unit(plan: UnitPlan, episode_speaker: str | None) -> UnitDraft:
    """The draft of the unit ``plan`` describes; ``episode_speaker`` is the speaker of its episode."""
    first = plan.members[0].fact
    text = " ".join(item.coref.text for item in plan.members).strip()
    mentions: dict[str, EntityMention] = {}
    literals = {lit for item in plan.members for lit in item.fact.literals}

    def add(surface: str, label: str) -> None:
        name = clean_name(surface)
        key = normalize_name(name)
        if literals and any(name in lit or lit in name for lit in literals):
            return
        if key and key not in mentions:
            mentions[key] = EntityMention(name, label)

    if episode_speaker:
        add(episode_speaker, "PERSON")
    for item in plan.members:
        for span in item.named.spans:
            add(span.text, span.label)
        for ref in item.coref.referents:
            add(ref.surface, ref.label)
        for ent in item.fact.entities:
            add(ent.surface, ent.label)
    links = tuple(dict.fromkeys(link for item in plan.members for link in item.fact.links))
    return UnitDraft(first.episode_index, text, first.memory_type, first.importance, first.speaker,
                     first.category, tuple(mentions.values()), first.context, links, first.kind)
