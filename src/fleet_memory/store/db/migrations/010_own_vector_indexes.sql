-- No fleet-wide HNSW index (store.agent_indexes): agents of at least 5,000 units
-- (agent_indexes.OWN_INDEX_UNITS) get their own partial HNSW and GIN indexes here, named and
-- commented as agent_indexes.index_names and _build make them; then the fleet-wide HNSW goes.
-- Smaller agents were already ranked exactly, without it; inserting into it cost every write
-- 1.3 ms a unit in a small store and over 10 ms in a 700,000-unit fleet.
DO $$
DECLARE
    agent text;
    digest text;
    kind text;
    method text;
BEGIN
    FOR agent IN SELECT agent_id FROM term_df WHERE lexeme = '' AND df >= 5000 ORDER BY agent_id LOOP
        digest := left(encode(sha256(convert_to(agent, 'UTF8')), 'hex'), 20);
        FOREACH kind IN ARRAY ARRAY['vec', 'tsv'] LOOP
            CONTINUE WHEN to_regclass('memory_units_own_' || kind || '_' || digest) IS NOT NULL;
            method := CASE kind WHEN 'vec' THEN 'hnsw (embedding vector_cosine_ops)' ELSE 'gin (tsv)' END;
            EXECUTE format('CREATE INDEX %I ON memory_units USING ' || method || ' WHERE agent_id = %L',
                           'memory_units_own_' || kind || '_' || digest, agent);
            EXECUTE format('COMMENT ON INDEX %I IS %L', 'memory_units_own_' || kind || '_' || digest, agent);
        END LOOP;
    END LOOP;
END
$$;
DROP INDEX IF EXISTS memory_units_embedding_idx;
