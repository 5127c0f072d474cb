"""Assembling one unit from its plan: the unit's text is its facts' texts after coreference,
joined by a space; it mentions its speaker (the fact's, else the episode's: a PERSON), then, fact
by fact, the entity spans, the coreference referents and the names an LLM extractor gave, each
normalised name once (first surface form kept) — except inline code of structured text
(``literals``), which is never a name. Type, importance, speaker, category, heading path
(``context``) and kind come from the first fact; links are those of all its facts.

What the unit adds to the episode's metadata:

- a ``subjectless`` plan (a chat line with no complete sentence) is said by its speaker, else by
  the user when the user id reads as a name: ``implied_subject`` names them, and the text is
  rewritten when that is safe ("Started at the clinic today." → "Alice started at the clinic
  today.", ``implied.with_subject``), else kept as said;
- a unit whose text asks something is flagged ``question`` (it is stored like any other: "How
  about we take the train instead of flying?" is what the speaker suggested);
- a date the text names (``dating.named_event_date``) becomes the unit's ``event_date``; the put's
  own time is kept as ``put_at`` and the words as ``date_phrase``.

Pure; O(facts + mentions).
"""

from __future__ import annotations

from functools import partial
from typing import Any

from ..naming import normalize_name
from ..providers.nlp import Parsed
from .dating import named_event_date
from .edited_parse import edited, joined, rendered
from .implied import with_subject
from .kept import Later
from .ner import clean_name
from .records import EntityMention, Episode, UnitDraft, UnitPlan

__all__ = ["draft_unit", "implied_subject"]


def implied_subject(speaker: str | None, user_id: str | None) -> str | None:
    """Who says a line without a subject: the speaker, else a user id that reads as a name."""
    if speaker:
        return speaker
    if user_id and user_id.replace(" ", "").isalpha() and user_id[:1].isupper():
        return user_id
    return None


def draft_unit(plan: UnitPlan, episode: Episode) -> UnitDraft:
    """The draft of the unit ``plan`` describes, for a plan of ``episode``."""
    first = plan.members[0].fact
    speaker = first.speaker or episode.speaker
    text = " ".join(item.coref.text for item in plan.members).strip()
    metadata: dict[str, Any] = {}
    if plan.subjectless:
        subject = implied_subject(speaker, episode.user_id)
        metadata["subjectless"] = True
        if subject:
            metadata["implied_subject"] = subject
            if rewritten := with_subject(plan.members[0].parse.tokens, text, subject):
                text = rewritten
    if text.rstrip().endswith("?"):
        metadata["question"] = True
    event_date = None
    if dated := named_event_date(text, episode.event_date):
        event_date, phrase = dated
        metadata["put_at"] = episode.event_date.isoformat()
        metadata["date_phrase"] = phrase
    mentions: dict[str, EntityMention] = {}
    literals = {lit for item in plan.members for lit in item.fact.literals}

    def add(surface: str, label: str) -> None:
        name = clean_name(surface)
        key = normalize_name(name)
        if literals and any(name in lit or lit in name for lit in literals):
            return
        if key and key not in mentions:
            mentions[key] = EntityMention(name, label)

    if speaker:
        add(speaker, "PERSON")
    for item in plan.members:
        for span in item.named.spans:
            add(span.text, span.label)
        for ref in item.coref.referents:
            add(ref.surface, ref.label)
        for ent in item.fact.entities:
            add(ent.surface, ent.label)
    links = tuple(dict.fromkeys(link for item in plan.members for link in item.fact.links))
    return UnitDraft(first.episode_index, text, first.memory_type, first.importance, first.speaker,
                     first.category, tuple(mentions.values()), event_date, metadata, first.context, links,
                     first.kind, Later(partial(_parse_of, plan, text)))


def _parse_of(plan: UnitPlan, text: str) -> Parsed | None:
    """The unit's parse from the parse step's, so supersession need not parse the unit again (made
    when supersession first reads the unit, ``ingest.kept``; most units are never a candidate): the
    parse itself when ``text`` is the very string parsed, else its facts' parses with coreference's
    edits applied and joined (``edited_parse``). None for code (never parsed), for a subject added
    (``with_subject``), and whenever the result does not render to ``text`` exactly."""
    parts = []
    for member in plan.members:
        parsed = member.named.parsed
        if parsed.fact.kind == "code":
            return None
        if not member.coref.edits and not parsed.appended:
            parts.append(parsed.parse)
            continue
        labels = {r.surface: r.label for r in member.coref.referents}
        part = edited(parsed.parse, member.coref.edits, labels, drop_last=parsed.appended)
        if part is None:
            return None
        parts.append(part)
    whole = parts[0] if len(parts) == 1 else joined(parts)
    return whole if rendered(whole) == text else None
