-- Every mention carries its unit's embedding, binary-quantized (one bit a dimension: pgvector's
-- binary_quantize, 48 bytes for 384 dimensions), in the index that lists an entity's mentions.
-- The entity channel of recall shortlists a common entity's mentions by Hamming distance from
-- that index alone, then ranks the shortlist exactly (store.candidates.ENTITY_SHORTLIST_FROM):
-- ranking 5,000 mentions exactly probed 5,000 unit rows (about 15 ms).
-- The bits are derived data, kept by the database like a generated column: a trigger sets them
-- from the unit's row on every insert (ingestion, merges, consolidation, imports, copies).
-- Embeddings are never updated in place, so inserts are all there is to follow. The column stays
-- nullable: the trigger finds no unit only for a row its foreign key refuses, and that error is the
-- one to report.
ALTER TABLE unit_entities ADD COLUMN bits bit({EMBEDDING_DIM});
UPDATE unit_entities ue SET bits = binary_quantize(u.embedding)::bit({EMBEDDING_DIM})
  FROM memory_units u WHERE u.agent_id = ue.agent_id AND u.id = ue.unit_id;

CREATE FUNCTION fm_mention_bits() RETURNS trigger LANGUAGE plpgsql
SET search_path FROM CURRENT AS $$
BEGIN
    SELECT binary_quantize(u.embedding)::bit({EMBEDDING_DIM}) INTO NEW.bits
      FROM memory_units u WHERE u.agent_id = NEW.agent_id AND u.id = NEW.unit_id;
    RETURN NEW;
END
$$;
CREATE TRIGGER unit_entities_bits BEFORE INSERT ON unit_entities
  FOR EACH ROW EXECUTE FUNCTION fm_mention_bits();

DROP INDEX unit_entities_entity_idx;
CREATE INDEX unit_entities_entity_idx ON unit_entities (agent_id, entity_id) INCLUDE (unit_id, bits);
