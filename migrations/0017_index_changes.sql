-- The agent each index version changed (its text inserted, changed or deleted). An isolate that read
-- a relevance list at an older index version keeps using it for every other agent, with a bound on
-- how far their bm25 can have moved since (src/agents/stale-lists.ts), and scores the agents changed
-- since then again. Only the last 10,000 changes are kept: a list older than that is read again.
CREATE TABLE index_changes (
  index_version INTEGER PRIMARY KEY,
  agent_rowid INTEGER NOT NULL
);

DROP TRIGGER index_version_ai;
CREATE TRIGGER index_version_ai AFTER INSERT ON agents BEGIN
  UPDATE catalog_version SET index_version = index_version + 1 WHERE id = 1;
  INSERT INTO index_changes (index_version, agent_rowid) SELECT index_version, NEW.rowid FROM catalog_version WHERE id = 1;
  DELETE FROM index_changes WHERE index_version <= (SELECT index_version - 10000 FROM catalog_version WHERE id = 1);
END;
DROP TRIGGER index_version_au;
CREATE TRIGGER index_version_au AFTER UPDATE OF name, description, param_text ON agents BEGIN
  UPDATE catalog_version SET index_version = index_version + 1 WHERE id = 1;
  INSERT INTO index_changes (index_version, agent_rowid) SELECT index_version, NEW.rowid FROM catalog_version WHERE id = 1;
  DELETE FROM index_changes WHERE index_version <= (SELECT index_version - 10000 FROM catalog_version WHERE id = 1);
END;
DROP TRIGGER index_version_ad;
CREATE TRIGGER index_version_ad AFTER DELETE ON agents BEGIN
  UPDATE catalog_version SET index_version = index_version + 1 WHERE id = 1;
  INSERT INTO index_changes (index_version, agent_rowid) SELECT index_version, OLD.rowid FROM catalog_version WHERE id = 1;
  DELETE FROM index_changes WHERE index_version <= (SELECT index_version - 10000 FROM catalog_version WHERE id = 1);
END;
