"""Records at the ingestion boundaries, in pipeline order:

    Episode ─extract─► ExtractedFact ─parse─► ParsedFact ─validate─► UnitPlan
            ─coref─► CorefText ─ner─► ResolvedFact ─embed─► EmbeddedFact ─store─► (rows)

``Episode`` is one validated put (a document, a note or a conversation turn); an
``ExtractedFact`` one sentence-level fact (offline: a sentence with substance; LLM: a fact the
model stated); ``ParsedFact`` the fact with its one spaCy parse; ``UnitPlan`` which facts form one
unit (fragments merged into a neighbour); ``CorefText`` a fact's text with pronouns replaced;
``ResolvedFact`` the unit's final text and the entities it mentions; ``EmbeddedFact`` with its id
and vector.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from uuid import UUID

import numpy as np

from ..providers.nlp import Parsed

__all__ = [
    "Episode",
    "ExtractedFact",
    "ParsedFact",
    "UnitPlan",
    "CorefText",
    "EntityMention",
    "ResolvedFact",
    "EmbeddedFact",
]


@dataclass(frozen=True, slots=True)
class Episode:
    """One validated piece of input: a document, a note, or a conversation turn."""

    agent_id: str
    content: str
    event_date: datetime
    memory_type: str = "episodic"
    importance: float | None = None
    context: str | None = None
    tags: tuple[str, ...] = ()
    user_id: str | None = None
    session_id: str | None = None
    source: str | None = None
    speaker: str | None = None
    metadata: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class EntityMention:
    surface: str
    label: str


@dataclass(frozen=True, slots=True)
class ExtractedFact:
    """One fact of one episode. ``self_contained`` facts (from an LLM) skip coreference and
    validation; ``entities`` are names the extractor already found."""

    episode_index: int
    text: str
    memory_type: str
    importance: float | None = None
    speaker: str | None = None
    category: str | None = None
    self_contained: bool = False
    entities: tuple[EntityMention, ...] = ()


@dataclass(frozen=True, slots=True)
class ParsedFact:
    """``appended``: a final "." was added for the parser (the small model finds entities more
    reliably in punctuated sentences); it is not part of the unit's text."""

    fact: ExtractedFact
    parse: Parsed
    appended: bool = False


@dataclass(frozen=True, slots=True)
class UnitPlan:
    """Indices (into the parsed facts) that become one unit, in order; at least one is valid."""

    members: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class CorefText:
    """A fact's text with pronouns replaced, and the entities the replacements point to."""

    text: str
    referents: tuple[EntityMention, ...] = ()


@dataclass(frozen=True, slots=True)
class ResolvedFact:
    """The text of one unit-to-be and the entities it mentions."""

    episode_index: int
    text: str
    memory_type: str
    importance: float | None
    speaker: str | None
    category: str | None
    mentions: tuple[EntityMention, ...]


@dataclass(frozen=True, slots=True)
class EmbeddedFact:
    fact: ResolvedFact
    unit_id: UUID
    embedding: np.ndarray
