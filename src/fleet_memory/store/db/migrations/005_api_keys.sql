-- API keys for the REST and MCP servers. Only the SHA-256 of a key is stored (keys are 32 random
-- bytes, so a plain hash cannot be brute-forced); the key itself is shown once, at creation.
-- Keys are not agent data, so this table is not keyed by agent_id: a key names the agents it may
-- act for (agent_ids), or is an admin key for all of them.
CREATE TABLE api_keys (
    id           uuid        PRIMARY KEY,
    name         text        NOT NULL,
    key_hash     text        NOT NULL UNIQUE,
    prefix       text        NOT NULL,
    agent_ids    text[]      NOT NULL DEFAULT '{}',
    admin        boolean     NOT NULL DEFAULT false,
    created_at   timestamptz NOT NULL,
    revoked_at   timestamptz,
    last_used_at timestamptz
);
