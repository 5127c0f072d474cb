"""LLM fact extraction (optional): one structured-output call per chunk, through any
OpenAI-compatible endpoint (``providers.llm``), validated against ``FactList``.

Chunking. A document up to ``chunk_chars`` (120,000) characters whose estimated tokens stay under
``chunk_max_tokens`` (30,000) is one chunk. A longer one is cut at sentence boundaries (the regex
splitter) into chunks that each stay under both limits; a single sentence longer than that is cut
between words. Conversation turns of one ``put_many`` are packed, in order, into transcript chunks
("#3 Caroline: …") under the same limits, so a conversation costs one call per chunk, not per turn.
Token estimate: max(characters / 4, 4/3 × words-and-punctuation), deliberately on the high side.

What the model reads. Structured content (Markdown, reStructuredText: ``Episode.format`` or
auto-detected, ``markup``) is sent as the prose the offline extractor would read, never raw
markup: each block on its own paragraph, a "Section: A > B" line where the heading path changes,
badges, images, code and code lead-ins left out (code kept, fenced, when ``keep_code``). Plain
text is sent as it is.

Calls. Chunks run with bounded concurrency (``LLMConfig.max_concurrency`` threads) and report
progress as ``progress(done, total)``. Each call is ``structured_call``: an invalid answer is
retried ``max_retries`` times and then raises ``ExtractionError`` quoting what came back; the whole
put then fails before anything is written (extraction runs before the transaction). An empty fact
list is a valid answer ("nothing with substance") and is reported in the put's result.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, Field

from ..config import IngestConfig, LLMConfig
from ..language import split_sentences
from ..providers.llm import LLM, structured_call
from .markup import blocks_of
from .ner import KEPT_LABELS
from .records import EntityMention, Episode, ExtractedFact

__all__ = ["Chunk", "FactList", "LLMFact", "chunk_text", "estimate_tokens", "extract_with_llm", "plan_chunks",
           "readable_text"]

Progress = Callable[[int, int], None]

_PIECES = re.compile(r"\w+|[^\w\s]")

SYSTEM_PROMPT = (
    "Extract the facts with substance from the text: biographical facts, events, opinions, recommendations, "
    "descriptions, relationships. Skip greetings, filler and reactions. Each fact is one self-contained "
    "sentence (subject + action + context) that names people instead of using pronouns. Give its category, "
    "speaker (if said in a conversation), memory_type (episodic: an event; semantic: a lasting fact; "
    "procedural: how to do something), importance 0-1, the named entities it involves, and for a "
    "transcript the #number of the line it comes from. Answer with JSON only."
)


class LLMEntity(BaseModel):
    name: str = Field(min_length=1, max_length=200)
    label: Literal["PERSON", "ORG", "GPE", "LOC", "FAC", "NORP", "PRODUCT", "EVENT", "WORK_OF_ART"] = "PERSON"


class LLMFact(BaseModel):
    text: str = Field(min_length=3, max_length=2000)
    category: Literal["biographical", "event", "opinion", "recommendation", "description", "relationship"]
    speaker: str | None = None
    memory_type: Literal["episodic", "semantic", "procedural"] = "episodic"
    importance: float | None = Field(default=None, ge=0.0, le=1.0)
    entities: list[LLMEntity] = Field(default_factory=list)
    line: int | None = None


class FactList(BaseModel):
    facts: list[LLMFact]


@dataclass(frozen=True, slots=True)
class Chunk:
    """Text for one call and the episodes it covers (``lines[k]`` = episode of transcript line #k)."""

    text: str
    episodes: tuple[int, ...]
    transcript: bool = False


def estimate_tokens(text: str) -> int:
    return max(math.ceil(len(text) / 4), math.ceil(len(_PIECES.findall(text)) * 4 / 3))


def _fits(text: str, config: IngestConfig) -> bool:
    return len(text) <= config.chunk_chars and estimate_tokens(text) < config.chunk_max_tokens


def _split_long(sentence: str, config: IngestConfig) -> list[str]:
    words, parts, current = sentence.split(), [], []
    for word in words:
        candidate = " ".join(current + [word])
        if current and not _fits(candidate, config):
            parts.append(" ".join(current))
            current = [word]
        else:
            current.append(word)
    if current:
        parts.append(" ".join(current))
    return parts


def chunk_text(text: str, config: IngestConfig) -> list[str]:
    """The text itself when it fits; else pieces cut at sentence boundaries, each fitting. Linear:
    characters and word pieces are counted as sentences are added."""
    if _fits(text, config):
        return [text]
    chunks: list[str] = []
    current: list[str] = []
    chars = pieces = 0
    for sentence in split_sentences(text):
        parts = [sentence] if _fits(sentence, config) else _split_long(sentence, config)
        for part in parts:
            n = len(_PIECES.findall(part))
            new_chars = chars + len(part) + (1 if current else 0)
            tokens = max(math.ceil(new_chars / 4), math.ceil((pieces + n) * 4 / 3))
            if current and (new_chars > config.chunk_chars or tokens >= config.chunk_max_tokens):
                chunks.append(" ".join(current))
                current, chars, pieces = [], 0, 0
                new_chars = len(part)
            current.append(part)
            chars, pieces = new_chars, pieces + n
    if current:
        chunks.append(" ".join(current))
    return chunks


def readable_text(episode: Episode) -> str:
    """What the model reads of ``episode``: its prose without markup (module docstring)."""
    blocks = blocks_of(episode.content, episode.format, keep_code=episode.keep_code)
    if blocks is None:
        return episode.content
    paragraphs: list[str] = []
    section = ""
    for block in blocks:
        if block.heading_path and block.heading_path != section:
            section = block.heading_path
            paragraphs.append(f"Section: {section}")
        paragraphs.append(f"```\n{block.text}\n```" if block.kind == "code" else block.text)
    return "\n\n".join(paragraphs)


def plan_chunks(episodes: Sequence[Episode], config: IngestConfig) -> list[Chunk]:
    """Documents become their chunks; consecutive conversation turns (with a speaker) of one agent
    are packed into transcript chunks."""
    chunks: list[Chunk] = []
    lines: list[str] = []
    members: list[int] = []
    agent: str | None = None

    def flush() -> None:
        if members:
            chunks.append(Chunk("\n".join(lines), tuple(members), transcript=True))
            lines.clear()
            members.clear()

    for index, episode in enumerate(episodes):
        text = readable_text(episode)
        if episode.speaker and _fits(text, config):
            line = f"#{len(members)} {episode.speaker}: {' '.join(text.split())}"
            if agent != episode.agent_id or (members and not _fits("\n".join(lines + [line]), config)):
                flush()
                line = f"#0 {episode.speaker}: {' '.join(text.split())}"
            agent = episode.agent_id
            lines.append(line)
            members.append(index)
            continue
        flush()
        agent = None
        for piece in chunk_text(text, config):
            chunks.append(Chunk(piece, (index,)))
    flush()
    return chunks


def _messages(chunk: Chunk, episodes: Sequence[Episode]) -> list[dict[str, str]]:
    first = episodes[chunk.episodes[0]]
    header = []
    if first.context:
        header.append(f"Context: {first.context}")
    header.append(f"Date: {first.event_date.date().isoformat()}")
    if first.speaker and not chunk.transcript:
        header.append(f"Speaker: {first.speaker}")
    kind = "Transcript" if chunk.transcript else "Text"
    return [
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user", "content": "\n".join(header) + f"\n{kind}:\n{chunk.text}"},
    ]


def _facts_of(chunk: Chunk, answer: FactList, episodes: Sequence[Episode]) -> list[ExtractedFact]:
    out = []
    for fact in answer.facts:
        line = fact.line if chunk.transcript and fact.line is not None else 0
        index = chunk.episodes[line] if 0 <= line < len(chunk.episodes) else chunk.episodes[0]
        episode = episodes[index]
        memory_type = episode.memory_type if episode.memory_type != "episodic" else fact.memory_type
        importance = episode.importance if episode.importance is not None else fact.importance
        entities = tuple(EntityMention(e.name, e.label) for e in fact.entities if e.label in KEPT_LABELS)
        out.append(ExtractedFact(
            index, " ".join(fact.text.split()), memory_type, importance, fact.speaker or episode.speaker,
            fact.category, self_contained=True, entities=entities,
        ))
    return out


def extract_with_llm(
    llm: LLM,
    episodes: Sequence[Episode],
    config: IngestConfig,
    llm_config: LLMConfig,
    *,
    progress: Progress | None = None,
) -> list[ExtractedFact]:
    """Facts of every episode, in episode order. Raises ``ExtractionError`` when a chunk keeps
    failing validation; nothing is returned (so nothing is stored) in that case."""
    chunks = plan_chunks(episodes, config)
    done = 0
    if progress is not None:
        progress(0, len(chunks))

    def call(chunk: Chunk) -> FactList:
        return structured_call(llm, _messages(chunk, episodes), FactList, retries=llm_config.max_retries)

    results: list[list[ExtractedFact]] = [[] for _ in chunks]
    workers = max(1, min(llm_config.max_concurrency, len(chunks)))
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="fm-extract") as pool:
        futures = [pool.submit(call, chunk) for chunk in chunks]
        try:
            for i, future in enumerate(futures):
                results[i] = _facts_of(chunks[i], future.result(), episodes)
                done += 1
                if progress is not None:
                    progress(done, len(chunks))
        except BaseException:
            for future in futures:
                future.cancel()
            raise
    facts = [f for chunk_facts in results for f in chunk_facts]
    facts.sort(key=lambda f: f.episode_index)
    return facts
