-- The agents each catalog version changed, so an isolate can keep what public ranking needs
-- (visibility and executions by rowid) current by reading only the agents changed since the version
-- it holds. Inserts and deletes move the index version, which makes isolates reload instead. Only the
-- last 10,000 changes are kept: an isolate further behind reloads too.
CREATE TABLE agent_changes (
  version INTEGER PRIMARY KEY,
  agent_rowid INTEGER NOT NULL
);

DROP TRIGGER catalog_version_au;
CREATE TRIGGER catalog_version_au AFTER UPDATE ON agents BEGIN
  UPDATE catalog_version SET version = version + 1 WHERE id = 1;
  INSERT INTO agent_changes (version, agent_rowid) SELECT version, NEW.rowid FROM catalog_version WHERE id = 1;
  DELETE FROM agent_changes WHERE version <= (SELECT version - 10000 FROM catalog_version WHERE id = 1);
END;

-- Public agents by rowid with their executions: an isolate loads them in rowid-ordered chunks without
-- touching the wide agent rows.
CREATE INDEX agents_public ON agents(rowid, executions) WHERE visibility = 'public';
