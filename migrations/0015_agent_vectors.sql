-- Agent embeddings for semantic search, one per agent and embedder (the embedder id names the model,
-- so a vector is only compared with query vectors of the same model). `seq` grows with every write,
-- so an isolate's vector index reads only what changed since it last looked; a vector whose agent text
-- changed or whose agent left is cleared (vec NULL, seq moved) rather than deleted, so that change is
-- read too. Agents without a current vector are embedded by the queue and the cron.
CREATE TABLE agent_vectors (
  agent_rowid INTEGER PRIMARY KEY,
  embedder TEXT NOT NULL,
  vec BLOB,
  seq INTEGER NOT NULL
);
CREATE INDEX agent_vectors_seq ON agent_vectors (seq);

CREATE TRIGGER agent_vectors_au AFTER UPDATE OF name, description, param_text ON agents BEGIN
  UPDATE agent_vectors SET vec = NULL, seq = (SELECT coalesce(max(seq), 0) + 1 FROM agent_vectors) WHERE agent_rowid = old.rowid;
END;
CREATE TRIGGER agent_vectors_ad AFTER DELETE ON agents BEGIN
  UPDATE agent_vectors SET vec = NULL, seq = (SELECT coalesce(max(seq), 0) + 1 FROM agent_vectors) WHERE agent_rowid = old.rowid;
END;
