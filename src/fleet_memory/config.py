"""Settings as frozen dataclasses. Reading the environment happens only in ``Config.from_env``,
which entry points (the facade when given no config, the CLI, the servers) call.

Environment variables:

- ``FLEET_MEMORY_DATABASE_URL``  any PostgreSQL >= 14 with pgvector; unset means the embedded server
- ``FLEET_MEMORY_HOME``          data directory of the embedded server (default: the user data dir)
- ``FLEET_MEMORY_PG_SHARED_BUFFERS_MB``  shared buffers of the embedded server (default: a quarter
  of RAM, 128 to 1024)
- ``FLEET_MEMORY_EMBEDDING_MODEL``  a sentence-transformers model name or path (default: bundled MiniLM)
- ``FLEET_MEMORY_EMBEDDING_PRECISION``  auto (default), float32 or bfloat16: the matrix products of
  a mean-pooled BERT (the default model); auto takes bfloat16 where the CPU has it in hardware
- ``FLEET_MEMORY_LLM=on|off``  LLM use is explicit: it is on only with ``FLEET_MEMORY_LLM=on`` or a
  ``FLEET_MEMORY_LLM_BASE_URL``; a provider's key in the environment (``GROQ_API_KEY``,
  ``OPENAI_API_KEY``, ...) alone switches nothing on. ``off`` wins over everything.
- ``FLEET_MEMORY_LLM_BASE_URL`` / ``FLEET_MEMORY_LLM_MODEL`` / ``FLEET_MEMORY_LLM_API_KEY``
  an OpenAI-compatible endpoint for conversation extraction, summaries and (opt-in) fact
  extraction. Switched on with no endpoint named, Groq's endpoint and the default model
  ``openai/gpt-oss-20b`` are used, with ``FLEET_MEMORY_LLM_API_KEY`` or else ``GROQ_API_KEY``.
- ``FLEET_MEMORY_LLM_EXTRACTION=1``  extract facts at ingestion with that LLM (default: offline rules)
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from .errors import ConfigurationError, InvalidInputError

__all__ = ["Config", "IngestConfig", "Limits", "LLMConfig", "LifecycleConfig", "default_home"]

GROQ_BASE_URL = "https://api.groq.com/openai/v1"
GROQ_DEFAULT_MODEL = "openai/gpt-oss-20b"


@dataclass(frozen=True, slots=True)
class Limits:
    """Bounds on input, checked at every entry point. Errors name the field and the limit."""

    max_content_chars: int = 2_000_000
    max_agent_id_chars: int = 128
    max_query_chars: int = 10_000
    max_top_k: int = 1_000
    max_thinking_budget: int = 100_000
    max_batch_items: int = 10_000
    max_tags: int = 64
    max_tag_chars: int = 128
    max_context_chars: int = 10_000


_DEFAULT_RETRIES = 2
MAX_PARSE_PROCESSES = 64


@dataclass(frozen=True, slots=True)
class LLMConfig:
    base_url: str
    model: str
    api_key: str | None = None
    timeout_s: float = 120.0
    max_retries: int = _DEFAULT_RETRIES
    max_concurrency: int = 4


@dataclass(frozen=True, slots=True)
class IngestConfig:
    temporal_window_hours: float = 24.0
    temporal_max_links: int = 20
    semantic_top_k: int = 5
    semantic_min_similarity: float = 0.7
    entity_threshold: float = 0.6
    entity_recency_days: float = 30.0
    llm_extraction: bool = False  # extract facts with the configured LLM instead of the offline rules
    chunk_chars: int = 120_000
    chunk_max_tokens: int = 30_000
    # facts that change (ingest.supersede): candidates per new unit that states a slot, their
    # minimum cosine, and whether a configured LLM judges the candidate pairs (one call per put)
    supersede: bool = True
    supersede_min_similarity: float = 0.3
    supersede_candidates: int = 20
    llm_supersession: bool = True
    embed_headings: int = 2  # the last N headings of a unit's heading path are embedded with its text
    # write the name of the one relative the user's memory names by a relation beside "my daughter",
    # "Dad's" … (ingest.kin): False stores the user's words as they were put
    name_relatives: bool = True


@dataclass(frozen=True, slots=True)
class LifecycleConfig:
    decay_rate: float = 0.02
    procedural_decay_rate: float = 0.005
    archive_below: float = 0.1
    emotional_keywords: tuple[str, ...] = ("critical", "urgent", "error", "success", "failure", "warning")
    consolidation_similarity: float = 0.75
    consolidation_min_cluster: int = 3
    consolidation_min_importance: float = 0.5
    consolidation_max_units: int = 2_000
    batch_size: int = 1_000
    schedule_interval_s: float = 3_600.0
    idempotency_key_ttl_hours: float = 24.0  # a retried write within this returns the first response


def default_home() -> Path:
    import platformdirs

    return Path(platformdirs.user_data_dir("fleet-memory", appauthor=False))


EMBEDDING_PRECISIONS = ("auto", "float32", "bfloat16")
"""Of the default encoder's matrix products (``providers.bert``): ``auto`` takes bfloat16 where the
CPU multiplies bfloat16 in hardware, float32 elsewhere."""


@dataclass(frozen=True, slots=True)
class Config:
    database_url: str | None = None
    home: Path | None = None
    embedding_model: str | None = None
    embedding_dim: int = 384
    embedding_precision: str = "auto"  # auto: bfloat16 products where the CPU has them (providers.bert)
    llm: LLMConfig | None = None
    limits: Limits = field(default_factory=Limits)
    ingest: IngestConfig = field(default_factory=IngestConfig)
    lifecycle: LifecycleConfig = field(default_factory=LifecycleConfig)
    pool_min_size: int = 3  # a request's own connection and two spare for its reads beside (at most pool_max_size)
    pool_max_size: int = 8
    prepared_statements: bool = True  # False behind PgBouncer < 1.21 in transaction mode
    embedded_shared_buffers_mb: int | None = None  # None: sized to the machine
    # what one agent may hold (``turns``): writes running at once, writes waiting for their turn
    # (holding no connection), and how long one waits before it is refused (BusyError, 429)
    writes_per_agent: int = 1
    waiting_writes_per_agent: int = 8
    write_wait_s: float = 120.0
    statement_timeout_s: float = 300.0  # any one SQL statement; 0 turns the limit off
    # worker processes that parse large puts (``ingest.parse_processes``); 0: in this process, the
    # library's default, since starting them re-imports the host's main module (``serve`` turns them on)
    parse_processes: int = 0

    def __post_init__(self) -> None:
        if self.pool_max_size < 1:
            raise ConfigurationError(f"pool_max_size must be at least 1, got {self.pool_max_size}")
        if self.writes_per_agent < 1 or self.waiting_writes_per_agent < 0:
            raise ConfigurationError("writes_per_agent must be at least 1 and waiting_writes_per_agent 0 or more, got"
                                     f" {self.writes_per_agent} and {self.waiting_writes_per_agent}")
        if not 0 <= self.parse_processes <= MAX_PARSE_PROCESSES:
            raise ConfigurationError(f"parse_processes must be 0 to {MAX_PARSE_PROCESSES}, got {self.parse_processes}")
        if not self.write_wait_s > 0 or not self.statement_timeout_s >= 0:
            raise ConfigurationError(f"write_wait_s must be above 0 and statement_timeout_s 0 or more, got"
                                     f" {self.write_wait_s} and {self.statement_timeout_s}")
        if self.pool_min_size < 0:
            raise ConfigurationError(f"pool_min_size must be 0 or more, got {self.pool_min_size}")
        if self.embedding_precision not in EMBEDDING_PRECISIONS:
            raise ConfigurationError(f"embedding_precision must be one of {', '.join(EMBEDDING_PRECISIONS)},"
                                     f" got {self.embedding_precision!r}")

    @property
    def llm_retries(self) -> int:
        """How often an invalid LLM answer is retried: the configured LLM's ``max_retries``, or
        ``LLMConfig``'s default when the LLM was handed to the facade without a config."""
        return self.llm.max_retries if self.llm is not None else _DEFAULT_RETRIES

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **overrides: object) -> Config:
        env = os.environ if environ is None else environ
        home = env.get("FLEET_MEMORY_HOME")
        config = cls(
            database_url=env.get("FLEET_MEMORY_DATABASE_URL") or None,
            home=Path(home).expanduser() if home else None,
            embedding_model=env.get("FLEET_MEMORY_EMBEDDING_MODEL") or None,
            embedding_precision=env.get("FLEET_MEMORY_EMBEDDING_PRECISION", "").strip().lower() or "auto",
            llm=_llm_from_env(env),
            ingest=IngestConfig(llm_extraction=env.get("FLEET_MEMORY_LLM_EXTRACTION", "").lower() in ("1", "true", "yes")),
            embedded_shared_buffers_mb=_shared_buffers_from_env(env),
            prepared_statements=env.get("FLEET_MEMORY_PREPARED_STATEMENTS", "").lower() not in ("0", "false", "no", "off"),
            parse_processes=_parse_processes_from_env(env),
        )
        return replace(config, **overrides) if overrides else config

    @property
    def data_dir(self) -> Path:
        return self.home if self.home is not None else default_home()


def _parse_processes_from_env(env: Mapping[str, str]) -> int:
    raw = env.get("FLEET_MEMORY_PARSE_PROCESSES", "").strip()
    if not raw:
        return 0
    if not raw.isdigit() or int(raw) > MAX_PARSE_PROCESSES:
        raise InvalidInputError("FLEET_MEMORY_PARSE_PROCESSES", f"must be a whole number of processes, got {raw!r}",
                                f"0 to {MAX_PARSE_PROCESSES}")
    return int(raw)


def _shared_buffers_from_env(env: Mapping[str, str]) -> int | None:
    raw = env.get("FLEET_MEMORY_PG_SHARED_BUFFERS_MB", "").strip()
    if not raw:
        return None
    if not raw.isdigit() or not 16 <= int(raw) <= 1_048_576:
        raise InvalidInputError("FLEET_MEMORY_PG_SHARED_BUFFERS_MB", f"must be a whole number of MB, got {raw!r}",
                                "16 to 1048576")
    return int(raw)


_ON, _OFF = ("1", "on", "true", "yes"), ("0", "off", "false", "no")


def _llm_from_env(env: Mapping[str, str]) -> LLMConfig | None:
    """The LLM only when switched on explicitly (``FLEET_MEMORY_LLM=on`` or a base URL); a
    provider key alone never turns it on. On with no endpoint named: Groq and the default model."""
    switch = env.get("FLEET_MEMORY_LLM", "").strip().lower()
    if switch and switch not in _ON + _OFF:
        raise InvalidInputError("FLEET_MEMORY_LLM", f"must be on or off, got {switch!r}", "on, off")
    base_url = env.get("FLEET_MEMORY_LLM_BASE_URL", "").strip()
    if switch in _OFF or (not switch and not base_url):
        return None
    model = env.get("FLEET_MEMORY_LLM_MODEL") or None
    key = env.get("FLEET_MEMORY_LLM_API_KEY") or None
    if base_url:
        return LLMConfig(base_url=base_url, model=model or "gpt-4o-mini", api_key=key)
    groq_key = key or env.get("GROQ_API_KEY") or None
    if groq_key is None:
        raise ConfigurationError("FLEET_MEMORY_LLM=on names no endpoint, so Groq's is used, and it needs a key: "
                                 "set FLEET_MEMORY_LLM_API_KEY or GROQ_API_KEY (or FLEET_MEMORY_LLM_BASE_URL)")
    return LLMConfig(base_url=GROQ_BASE_URL, model=model or GROQ_DEFAULT_MODEL, api_key=groq_key)
