"""Records at the ingestion boundaries, in pipeline order (one per step, so the types tell the data
flow; ``pipeline.Ingestor`` passes each step's record to the next):

    Episode ─extract─► ExtractedFact ─parse─► ParsedFact ─entities─► NamedFact ─coref─► CorefFact
            ─validate─► UnitPlan ─assemble─► UnitDraft ─embed─► EmbeddedUnit ─write─► WrittenUnit
            ─resolve─► entity mention rows ─link─► link rows

Per fact: ``Episode`` is one validated put (a document, a note or a conversation turn); an
``ExtractedFact`` one sentence-level fact of it (offline: a sentence with substance; LLM: a fact
the model stated); ``ParsedFact`` the fact with its one spaCy parse; ``NamedFact`` with the entity
spans found in that parse; ``CorefFact`` with its text after pronouns were replaced (``CorefText``).
Per unit: ``UnitPlan`` the facts that form one unit (fragments merged into a neighbour);
``UnitDraft`` the unit's final text and the entities it mentions; ``EmbeddedUnit`` with its id and
vector; ``WrittenUnit`` the row written and the mentions still to resolve. Per put: ``WrittenPut``
the documents and units written and the agents' sizes after the write. Each record knows the
index of its episode, so nothing is joined by list position.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any
from uuid import UUID

import numpy as np

from ..providers.nlp import Parsed, Span

if TYPE_CHECKING:
    from ..store.tables.units import NewUnit
    from .kept import Later

__all__ = [
    "AgentContext",
    "RecentMention",
    "Episode",
    "ExtractedFact",
    "ParsedFact",
    "NamedFact",
    "CorefText",
    "CorefFact",
    "UnitPlan",
    "EntityMention",
    "UnitDraft",
    "EmbeddedUnit",
    "WrittenUnit",
    "WrittenPut",
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
    corrects: UUID | None = None  # the unit this episode's first unit supersedes (``update``)
    format: str = "auto"  # how ``content`` is read: auto, text, markdown, rst (``markup``)
    keep_code: bool = False  # store each code block of structured content as one unit of its own


@dataclass(frozen=True, slots=True)
class RecentMention:
    """A person of the agent's recent memory, for pronouns across puts: the name (``""`` for a
    rival, never an antecedent: a capitalised word beside a role that names no person; "my dad" is
    a name here),
    the pronoun learnt from how memory refers to them (``"f"``, ``"m"`` or None; ``ingest.genders``)
    and the unit that mentions them (0: the most relevant; the people of one unit were mentioned
    together)."""

    name: str
    gender: str | None
    unit: int
    fresh: bool = False  # the unit was stated within the put's temporal window (a day by default)
    serves: bool = False  # the unit names them as someone met for a service ("my physio, Dana": ``genders.serves``)
    with_pet_or_ship: bool = False  # the unit names a pet or a boat too ("Bartek has a husky"): they take he/she
    marked: bool = True  # something marks the name as a person's (``ingest.memory``): "Porto" is not


@dataclass(frozen=True, slots=True)
class AgentContext:
    """What the agent's memory tells about a put (stage ``memory``): per episode index, the people
    of the agent's recent units (least relevant first, so the most relevant is the latest
    antecedent) and the speakers among them; per agent, the stored entities the put names
    (normalised name → label), the gazetteer NER uses, and its units before the put; per episode
    index, the recent people with their pronouns and units (``mentions``, for coreference) and the
    relatives they name by one relation each ("my daughter Aoife": ``relatives``)."""

    people: Mapping[int, tuple[str, ...]] = field(default_factory=dict)
    speakers: Mapping[int, frozenset[str]] = field(default_factory=dict)
    known: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    units: Mapping[str, int] = field(default_factory=dict)
    mentions: Mapping[int, tuple[RecentMention, ...]] = field(default_factory=dict)  # least relevant first
    relatives: Mapping[int, Mapping[str, str | None]] = field(default_factory=dict)  # relation → name: ``ingest.kin``

    def gazetteer(self, agent_id: str) -> Mapping[str, str]:
        return self.known.get(agent_id, {})


@dataclass(frozen=True, slots=True)
class EntityMention:
    surface: str
    label: str


@dataclass(frozen=True, slots=True)
class ExtractedFact:
    """One fact of one episode. ``self_contained`` facts (from an LLM, or code) skip coreference and
    validation; ``entities`` are names the extractor already found. From structured text:
    ``context`` is the heading path, ``links`` the (text, URL) pairs of its block, ``literals`` the
    inline code of its block (never entities), ``kind`` ``"code"`` for a kept code block (not parsed)."""

    episode_index: int
    text: str
    memory_type: str
    importance: float | None = None
    speaker: str | None = None
    category: str | None = None
    self_contained: bool = False
    entities: tuple[EntityMention, ...] = ()
    context: str | None = None
    links: tuple[tuple[str, str], ...] = ()
    literals: tuple[str, ...] = ()
    kind: str = "text"


@dataclass(frozen=True, slots=True)
class ParsedFact:
    """``appended``: a final "." was added for the parser (the small model finds entities more
    reliably in punctuated sentences); it is not part of the unit's text."""

    fact: ExtractedFact
    parse: Parsed
    appended: bool = False


@dataclass(frozen=True, slots=True)
class NamedFact:
    """A parsed fact and the entity spans found in its parse (``ner``), in token order."""

    parsed: ParsedFact
    spans: tuple[Span, ...]

    @property
    def fact(self) -> ExtractedFact:
        return self.parsed.fact


@dataclass(frozen=True, slots=True)
class CorefText:
    """A fact's text with pronouns replaced, and the entities the replacements point to."""

    text: str
    referents: tuple[EntityMention, ...] = ()
    edits: tuple[tuple[int, str], ...] = ()  # (token index in the parse, what replaced the token), in order


@dataclass(frozen=True, slots=True)
class CorefFact:
    """A named fact and its text after coreference (``coref``)."""

    named: NamedFact
    coref: CorefText

    @property
    def fact(self) -> ExtractedFact:
        return self.named.parsed.fact

    @property
    def parse(self) -> Parsed:
        return self.named.parsed.parse


@dataclass(frozen=True, slots=True)
class UnitPlan:
    """The facts that become one unit, in order (all of one episode); at least one is complete,
    unless ``subjectless``: the episode had no complete sentence and its fragments are kept with
    an implied subject (a chat line such as "Started at the new clinic today.")."""

    members: tuple[CorefFact, ...]
    subjectless: bool = False


@dataclass(frozen=True, slots=True)
class UnitDraft:
    """The text of one unit-to-be and the entities it mentions; ``event_date`` when its text names
    the date of the event (else the episode's), ``metadata`` what the unit adds to the episode's
    (put_at, date_phrase, question, implied_subject)."""

    episode_index: int
    text: str
    memory_type: str
    importance: float | None
    speaker: str | None
    category: str | None
    mentions: tuple[EntityMention, ...]
    event_date: datetime | None = None
    metadata: Mapping[str, Any] = field(default_factory=dict)
    context: str | None = None  # heading path of structured text
    links: tuple[tuple[str, str], ...] = ()
    kind: str = "text"
    parse: Later[Parsed] | None = None  # of ``text``, made when asked from the parse step's (``assemble._parse_of``)


@dataclass(frozen=True, slots=True)
class EmbeddedUnit:
    draft: UnitDraft
    unit_id: UUID
    embedding: np.ndarray


@dataclass(frozen=True, slots=True)
class WrittenUnit:
    """A unit row as written, with its episode and the mentions that ``resolve`` records."""

    episode_index: int
    row: NewUnit
    mentions: tuple[EntityMention, ...]
    parse: Later[Parsed] | None = None  # ``UnitDraft.parse``, kept for supersession (``ingest.kept``)


@dataclass(frozen=True, slots=True)
class WrittenPut:
    """What a put wrote: a document per episode (in order), its units, and each agent's unit count
    after the write."""

    documents: tuple[UUID, ...]
    units: tuple[WrittenUnit, ...]
    unit_counts: Mapping[str, int]
