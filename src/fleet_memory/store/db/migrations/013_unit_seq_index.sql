-- An agent's units in write order, from the index alone. The reads beside a put that keep an
-- agent's embeddings in memory (store.embedding_cache) ask every time for every unit's seq (to
-- see what was deleted) and for the rows written after the newest one held. Without this index
-- both went through the agent's heap rows, about 900 pages at 4,500 units: 3.5-8 ms a put, most
-- of a one-message put's wait for its semantic links. With it the seqs come from an index-only
-- scan and the new rows from a range: about 1 ms.
CREATE INDEX memory_units_seq_idx ON memory_units (agent_id, seq);
