-- One put stores one document, however many identical puts arrive at once. The duplicate rule
-- (ingest: the same content hash and event time for the same agent and user stores nothing new)
-- was read before a put's transaction, so eight identical puts at the same moment each found
-- nothing and stored eight documents. This unique index makes the decision atomic: a document
-- written by a put (deduplicated; not an update's, not an episode repeated within one batch, not
-- one from before this migration) is unique per agent, hash, event time and user; the second of
-- two concurrent writers waits for the first and, once it has committed, fails
-- (store.documents.StoredConcurrently), and its put answers again, now as a duplicate.
ALTER TABLE documents ADD COLUMN deduplicated boolean NOT NULL DEFAULT false;
CREATE UNIQUE INDEX documents_put_once_idx ON documents (agent_id, content_hash, event_date, user_id)
  NULLS NOT DISTINCT WHERE deduplicated;
