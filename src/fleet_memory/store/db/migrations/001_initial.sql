-- fleet-memory schema, version 1. {EMBEDDING_DIM} is replaced by the configured embedding size.
-- Every table carries agent_id, first in every primary key, so the schema can be distributed by
-- agent (Citus) without redesign; no query crosses agents.

CREATE EXTENSION IF NOT EXISTS vector;

CREATE TABLE fm_settings (
    key   text PRIMARY KEY,
    value text NOT NULL
);
INSERT INTO fm_settings (key, value) VALUES ('embedding_dim', '{EMBEDDING_DIM}');

CREATE TABLE documents (
    agent_id     text        NOT NULL,
    id           uuid        NOT NULL,
    content      text        NOT NULL,
    content_hash text        NOT NULL,
    context      text,
    source       text,
    speaker      text,
    event_date   timestamptz NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    metadata     jsonb       NOT NULL DEFAULT '{}'::jsonb,
    PRIMARY KEY (agent_id, id)
);
CREATE INDEX documents_hash_idx ON documents (agent_id, content_hash);

CREATE TABLE memory_units (
    agent_id          text        NOT NULL,
    id                uuid        NOT NULL,
    document_id       uuid,
    text              text        NOT NULL,
    memory_type       text        NOT NULL DEFAULT 'episodic'
                      CHECK (memory_type IN ('episodic', 'semantic', 'procedural')),
    context           text,
    event_date        timestamptz NOT NULL,
    created_at        timestamptz NOT NULL DEFAULT now(),
    last_accessed     timestamptz,
    access_count      integer     NOT NULL DEFAULT 0,
    importance        real        NOT NULL DEFAULT 0.5 CHECK (importance >= 0 AND importance <= 1),
    importance_set_at timestamptz NOT NULL DEFAULT now(),
    embedding         vector({EMBEDDING_DIM}) NOT NULL,
    tsv               tsvector GENERATED ALWAYS AS (to_tsvector('english'::regconfig, text)) STORED,
    tags              text[]      NOT NULL DEFAULT '{}',
    user_id           text,
    session_id        text,
    source            text,
    speaker           text,
    archived_at       timestamptz,
    metadata          jsonb       NOT NULL DEFAULT '{}'::jsonb,
    PRIMARY KEY (agent_id, id),
    FOREIGN KEY (agent_id, document_id) REFERENCES documents (agent_id, id) ON DELETE CASCADE
);
CREATE INDEX memory_units_embedding_idx ON memory_units USING hnsw (embedding vector_cosine_ops);
CREATE INDEX memory_units_tsv_idx ON memory_units USING gin (tsv);
CREATE INDEX memory_units_event_idx ON memory_units (agent_id, event_date);
CREATE INDEX memory_units_document_idx ON memory_units (agent_id, document_id);
CREATE INDEX memory_units_tags_idx ON memory_units USING gin (tags);

CREATE TABLE entities (
    agent_id        text        NOT NULL,
    id              uuid        NOT NULL,
    name            text        NOT NULL,
    normalized_name text        NOT NULL,
    label           text        NOT NULL,
    aliases         text[]      NOT NULL DEFAULT '{}',
    first_seen      timestamptz NOT NULL,
    last_seen       timestamptz NOT NULL,
    mention_count   integer     NOT NULL DEFAULT 0,
    PRIMARY KEY (agent_id, id)
);
CREATE UNIQUE INDEX entities_name_idx ON entities (agent_id, normalized_name);
CREATE INDEX entities_aliases_idx ON entities USING gin (aliases);

CREATE TABLE unit_entities (
    agent_id  text NOT NULL,
    unit_id   uuid NOT NULL,
    entity_id uuid NOT NULL,
    PRIMARY KEY (agent_id, unit_id, entity_id),
    FOREIGN KEY (agent_id, unit_id) REFERENCES memory_units (agent_id, id) ON DELETE CASCADE,
    FOREIGN KEY (agent_id, entity_id) REFERENCES entities (agent_id, id) ON DELETE CASCADE
);
CREATE INDEX unit_entities_entity_idx ON unit_entities (agent_id, entity_id);

-- Temporal and semantic links, one row per unordered pair (from_id < to_id is not required;
-- readers look in both directions). Entity links are derived from unit_entities when read.
CREATE TABLE links (
    agent_id text NOT NULL,
    from_id  uuid NOT NULL,
    to_id    uuid NOT NULL,
    kind     text NOT NULL CHECK (kind IN ('temporal', 'semantic')),
    weight   real NOT NULL CHECK (weight >= 0 AND weight <= 1),
    PRIMARY KEY (agent_id, from_id, to_id, kind),
    FOREIGN KEY (agent_id, from_id) REFERENCES memory_units (agent_id, id) ON DELETE CASCADE,
    FOREIGN KEY (agent_id, to_id) REFERENCES memory_units (agent_id, id) ON DELETE CASCADE
);
CREATE INDEX links_to_idx ON links (agent_id, to_id);

-- Consolidation provenance: which episodic units a semantic unit was made from.
CREATE TABLE unit_sources (
    agent_id   text        NOT NULL,
    unit_id    uuid        NOT NULL,
    source_id  uuid        NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (agent_id, unit_id, source_id),
    FOREIGN KEY (agent_id, unit_id) REFERENCES memory_units (agent_id, id) ON DELETE CASCADE,
    FOREIGN KEY (agent_id, source_id) REFERENCES memory_units (agent_id, id) ON DELETE CASCADE
);
CREATE INDEX unit_sources_source_idx ON unit_sources (agent_id, source_id);
