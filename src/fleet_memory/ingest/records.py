"""Records at the ingestion boundaries: ``Episode`` (one validated put) → ``ExtractedFact`` (one
sentence-level fact) → ``EmbeddedFact`` (with its vector)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from uuid import UUID

import numpy as np

__all__ = ["Episode", "ExtractedFact", "EmbeddedFact"]


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
class ExtractedFact:
    episode_index: int
    text: str
    memory_type: str
    importance: float | None = None
    speaker: str | None = None
    category: str | None = None


@dataclass(frozen=True, slots=True)
class EmbeddedFact:
    fact: ExtractedFact
    unit_id: UUID
    embedding: np.ndarray
