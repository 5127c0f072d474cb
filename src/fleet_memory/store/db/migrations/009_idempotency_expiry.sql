-- Idempotency keys expire (fleet_memory.idempotency: kept LifecycleConfig.idempotency_key_ttl_hours,
-- 24 h by default): this index lets a write delete its agent's expired keys, and maintenance all
-- expired keys, without reading the live ones.
CREATE INDEX idempotency_keys_created_idx ON idempotency_keys (agent_id, created_at);
CREATE INDEX idempotency_keys_expiry_idx ON idempotency_keys (created_at);
